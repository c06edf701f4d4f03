package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Libc;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Waits, with a timeout, until a file descriptor of libibverbs (a completion channel, the async
 * event fd) is readable, or until another thread calls {@link #wakeup()}. The verbs calls that
 * read those fds block in {@code read(2)}, which a Java thread cannot interrupt; so we
 * {@code poll(2)} the fd together with an eventfd first and call the verb only when it will not
 * block.
 */
final class FdWaiter implements AutoCloseable {
    enum Result { READY, TIMEOUT, WOKEN }

    private static final VarHandle FD = Structs.field(Structs.POLLFD, "fd");
    private static final VarHandle EVENTS = Structs.field(Structs.POLLFD, "events");
    private static final VarHandle REVENTS = Structs.field(Structs.POLLFD, "revents");
    private static final long POLLFD_SIZE = Structs.POLLFD.byteSize();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds;
    private final MemorySegment errno;
    private final MemorySegment counter;
    private final MemorySegment one;
    private final int eventFd;
    private volatile boolean closed;

    /**
     * @param fd the descriptor to wait on
     * @throws VerbsException when no eventfd can be created
     */
    FdWaiter(int fd) {
        errno = Native.errnoSegment(arena);
        counter = arena.allocate(ValueLayout.JAVA_LONG);
        one = arena.allocate(ValueLayout.JAVA_LONG);
        one.set(ValueLayout.JAVA_LONG, 0, 1L);
        int efd;
        try {
            efd = (int) Libc.EVENTFD.invokeExact(errno, 0, Consts.EFD_CLOEXEC | Consts.EFD_NONBLOCK);
        } catch (Throwable t) {
            arena.close();
            throw new VerbsException("eventfd failed", 0, t);
        }
        if (efd < 0) {
            int e = Native.errno(errno);
            arena.close();
            throw new VerbsException("eventfd failed: " + Native.describeErrno(e), e, null);
        }
        eventFd = efd;
        fds = arena.allocate(Structs.POLLFD, 2);
        FD.set(fds, 0L, fd);
        EVENTS.set(fds, 0L, Consts.POLLIN);
        FD.set(fds, POLLFD_SIZE, eventFd);
        EVENTS.set(fds, POLLFD_SIZE, Consts.POLLIN);
    }

    /**
     * Waits up to {@code timeoutMillis} (0: just look). One waiting thread at a time.
     *
     * @throws VerbsException when poll(2) fails or the waiter is closed
     */
    Result await(int timeoutMillis) {
        if (closed) {
            return Result.WOKEN;
        }
        REVENTS.set(fds, 0L, (short) 0);
        REVENTS.set(fds, POLLFD_SIZE, (short) 0);
        int n;
        try {
            n = (int) Libc.POLL.invokeExact(errno, fds, 2L, timeoutMillis);
        } catch (Throwable t) {
            throw new VerbsException("poll failed", 0, t);
        }
        if (n < 0) {
            int e = Native.errno(errno);
            if (e == Consts.EINTR) {
                return Result.TIMEOUT;
            }
            throw new VerbsException("poll failed: " + Native.describeErrno(e), e, null);
        }
        if ((short) REVENTS.get(fds, POLLFD_SIZE) != 0) {
            drainEventFd();
            return Result.WOKEN;
        }
        return n > 0 ? Result.READY : Result.TIMEOUT;
    }

    /** Makes the current (or next) {@link #await} return {@link Result#WOKEN}. */
    void wakeup() {
        if (closed) {
            return;
        }
        try {
            long ignored = (long) Libc.WRITE.invokeExact(eventFd, one, 8L);
        } catch (Throwable t) {
            throw new VerbsException("eventfd write failed", 0, t);
        }
    }

    private void drainEventFd() {
        try {
            long ignored = (long) Libc.READ.invokeExact(eventFd, counter, 8L);
        } catch (Throwable t) {
            throw new VerbsException("eventfd read failed", 0, t);
        }
    }

    /** Closes the eventfd; the caller makes sure that no thread is in {@link #await}. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int ignored = (int) Libc.CLOSE.invokeExact(eventFd);
        } catch (Throwable t) {
            // Nothing more to free: the fd is gone or was never valid.
        }
        arena.close();
    }
}
