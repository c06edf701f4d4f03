package ipoib.netdev.internal;

import ipoib.runtime.Threads;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * One platform thread that waits with {@code epoll(7)} on many descriptors (level-triggered
 * {@code EPOLLIN}) and, for each that became readable, calls its {@link Reader} on that thread,
 * which reads up to a budget and returns. A descriptor with more to read is reported again by the
 * next {@code epoll_wait}, after the others ready in the same round: many devices served by one
 * thread in turn, as NAPI polls many devices from one softirq per CPU (net/core/dev.c,
 * {@code net_rx_action}). A reader that reports its descriptor failing is taken out of the wait
 * for {@value #BACK_OFF_MILLIS} ms (a failing descriptor would be ready at once, every round).
 * The thread starts with the first registration and ends with the last (a bundle update leaves
 * no thread behind). Allocation-free per event.
 */
final class DescriptorPoller {
    /** Called on the poller's thread when the descriptor is readable. */
    interface Reader {
        /** Reads what is waiting, up to a budget; false when the descriptor failed (backed off a while). */
        boolean readable();
    }

    static final int BACK_OFF_MILLIS = 10;
    private static final int WAIT_MILLIS = 100;
    private static final int MAX_EVENTS = 64;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLL_CTL_DEL = 2;
    private static final int EPOLL_CTL_MOD = 3;
    private static final int EPOLLIN = 0x001;
    private static final int EPOLL_CLOEXEC = 0x80000;
    private static final int EINTR = 4;
    /** struct epoll_event is packed on x86-64 (12 octets: the data at 4), natural elsewhere (16: at 8). */
    private static final boolean PACKED = System.getProperty("os.arch", "").matches("amd64|x86_64");
    static final int EVENT_SIZE = PACKED ? 12 : 16;
    private static final int DATA_OFFSET = PACKED ? 4 : 8;

    private static final MethodHandle EPOLL_CREATE1 = Libc.call("epoll_create1",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle EPOLL_CTL = Libc.call("epoll_ctl", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle EPOLL_WAIT = Libc.call("epoll_wait", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));


    private final String name;
    // Guarded by this: the registrations by slot (an event's data is its slot), the free slots, the thread.
    private Registration[] slots = new Registration[16];
    private volatile Registration[] published = slots;
    private int registered;
    private int epfd = -1;
    private Thread thread;
    private Loop loop;

    /** @param name the thread's name */
    DescriptorPoller(String name) {
        this.name = name;
    }

    /** Descriptors registered now. */
    synchronized int registered() {
        return registered;
    }

    /**
     * Waits for {@code fd} to be readable and calls {@code reader} then, until the registration is
     * closed.
     *
     * @throws IOException when epoll refuses the descriptor
     */
    synchronized Registration register(int fd, Reader reader) throws IOException {
        if (thread == null) {
            epfd = call(EPOLL_CREATE1, "epoll_create1", EPOLL_CLOEXEC);
            loop = new Loop(epfd);
            thread = Threads.create(name, true, loop);
            thread.start();
        }
        int slot = 0;
        while (slot < slots.length && slots[slot] != null) {
            slot++;
        }
        if (slot == slots.length) {
            slots = java.util.Arrays.copyOf(slots, slots.length * 2);
        }
        Registration r = new Registration(this, fd, slot, reader);
        slots[slot] = r;
        published = slots.clone();
        try {
            control(EPOLL_CTL_ADD, fd, EPOLLIN, slot);
        } catch (IOException e) {
            slots[slot] = null;
            published = slots.clone();
            stopIfIdle();
            throw e;
        }
        registered++;
        return r;
    }

    private synchronized void unregister(Registration r) {
        if (slots[r.slot] != r) {
            return;
        }
        try {
            control(EPOLL_CTL_DEL, r.fd, 0, r.slot);
        } catch (IOException ignored) {
            // Closed already: the kernel took it out of the set with its last descriptor.
        }
        slots[r.slot] = null;
        published = slots.clone();
        registered--;
        stopIfIdle();
    }

    private void stopIfIdle() {
        if (registered == 0 && thread != null) {
            loop.running = false; // the thread closes the epoll descriptor when its wait returns
            thread = null;
            loop = null;
            epfd = -1;
        }
    }

    /** Whether the thread of this poller runs now (between the first registration and the last's close). */
    synchronized boolean running() {
        return thread != null;
    }

    private void control(int op, int fd, int events, int slot) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment event = arena.allocate(EVENT_SIZE, 8);
            event.set(ValueLayout.JAVA_INT, 0, events);
            event.set(ValueLayout.JAVA_LONG_UNALIGNED, DATA_OFFSET, slot);
            MemorySegment capture = Libc.capture(arena);
            int r = (int) EPOLL_CTL.invokeExact(capture, epfd, op, fd, event.address());
            if (r < 0) {
                throw new IOException("epoll_ctl of descriptor " + fd + ": " + Libc.strerror(Libc.errno(capture)));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int call(MethodHandle h, String what, int argument) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = Libc.capture(arena);
            int r = (int) h.invokeExact(capture, argument);
            if (r < 0) {
                throw new IOException(what + ": " + Libc.strerror(Libc.errno(capture)));
            }
            return r;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A descriptor in the poller's set; {@link #close} takes it out and waits for a read in progress. */
    static final class Registration implements AutoCloseable {
        private final DescriptorPoller poller;
        final int fd;
        final int slot;
        private final Reader reader;
        /** Guarded by this: false once closed (no read starts after). */
        private boolean open = true;
        /** Poller thread only: when a backed-off registration is waited on again (0: it is). */
        long resumeAtNanos;

        private Registration(DescriptorPoller poller, int fd, int slot, Reader reader) {
            this.poller = poller;
            this.fd = fd;
            this.slot = slot;
            this.reader = reader;
        }

        /** Calls the reader unless closed; false when it reported the descriptor failing. */
        synchronized boolean read() {
            return !open || reader.readable();
        }

        /** Takes the descriptor out of the set; returns after a read in progress ended (also on the poller's thread). */
        @Override
        public void close() {
            synchronized (this) {
                open = false;
            }
            poller.unregister(this);
        }
    }

    /** The thread's loop over its own epoll descriptor (a successor thread has its own). */
    private final class Loop implements Runnable {
        private final int epfd;
        volatile boolean running = true;
        private final List<Registration> backedOff = new ArrayList<>();

        Loop(int epfd) {
            this.epfd = epfd;
        }

        @Override
        public void run() {
            Arena arena = Arena.ofShared();
            MemorySegment events = arena.allocate((long) EVENT_SIZE * MAX_EVENTS, 8);
            MemorySegment capture = Libc.capture(arena);
            try {
                while (running) {
                    int n = (int) EPOLL_WAIT.invokeExact(capture, epfd, events.address(), MAX_EVENTS, waitMillis());
                    if (n < 0 && Libc.errno(capture) != EINTR) {
                        throw new IllegalStateException("epoll_wait: " + Libc.strerror(Libc.errno(capture)));
                    }
                    Registration[] table = published;
                    for (int i = 0; i < n; i++) {
                        long slot = events.get(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * EVENT_SIZE + DATA_OFFSET);
                        Registration r = slot < table.length ? table[(int) slot] : null;
                        if (r != null && !readQuietly(r)) {
                            backOff(r);
                        }
                    }
                    resume();
                }
            } catch (Throwable t) {
                throw t instanceof RuntimeException e ? e : new IllegalStateException(t);
            } finally {
                try {
                    int ignored = (int) Libc.CLOSE.invokeExact(capture, epfd);
                } catch (Throwable ignored) {
                    // Nothing more to release.
                }
                arena.close();
            }
        }

        /** A reader that throws is treated as a failing descriptor: the other descriptors go on being served. */
        private static boolean readQuietly(Registration r) {
            try {
                return r.read();
            } catch (RuntimeException e) {
                return false;
            }
        }

        private int waitMillis() {
            return backedOff.isEmpty() ? WAIT_MILLIS : BACK_OFF_MILLIS;
        }

        private void backOff(Registration r) {
            try {
                modify(r, 0);
                r.resumeAtNanos = System.nanoTime() + BACK_OFF_MILLIS * 1_000_000L;
                backedOff.add(r);
            } catch (IOException gone) {
                // Closed meanwhile: nothing to resume.
            }
        }

        private void resume() {
            if (backedOff.isEmpty()) {
                return;
            }
            long now = System.nanoTime();
            for (int i = backedOff.size() - 1; i >= 0; i--) {
                Registration r = backedOff.get(i);
                if (now - r.resumeAtNanos >= 0) {
                    backedOff.remove(i);
                    try {
                        modify(r, EPOLLIN);
                    } catch (IOException gone) {
                        // Closed meanwhile.
                    }
                }
            }
        }

        private void modify(Registration r, int events) throws IOException {
            synchronized (DescriptorPoller.this) {
                if (published[r.slot] != r) {
                    throw new IOException("closed");
                }
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment event = arena.allocate(EVENT_SIZE, 8);
                    event.set(ValueLayout.JAVA_INT, 0, events);
                    event.set(ValueLayout.JAVA_LONG_UNALIGNED, DATA_OFFSET, r.slot);
                    MemorySegment capture = Libc.capture(arena);
                    int result = (int) EPOLL_CTL.invokeExact(capture, epfd, EPOLL_CTL_MOD, r.fd, event.address());
                    if (result < 0) {
                        throw new IOException("epoll_ctl MOD");
                    }
                } catch (IOException | RuntimeException | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            }
        }
    }
}
