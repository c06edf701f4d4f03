package ipoib.verbs.loopback.ibsim;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * AF_UNIX datagram sockets in Linux's abstract namespace through libc ({@code java.net} has
 * AF_UNIX stream channels only): socket, bind, connect, recvfrom, sendto, poll, eventfd and
 * close. A name is {@code struct sockaddr_un} with a NUL first octet, the name's octets and
 * one NUL after them: ibsim's and umad2sim's {@code make_name} (ibsim/ibsim.c,
 * umad2sim/sim_client.c) add the leading NUL to the length twice, so the terminating NUL is
 * part of every name they bind and connect to. Abstract names compare by length and octets:
 * a name without it is another name ({@code ss -x} shows both NULs as {@code @}).
 */
@SuppressWarnings("restricted") // native calls are this class's purpose; the JVM runs with --enable-native-access
final class UnixDatagrams {
    private UnixDatagrams() {}

    static final int AF_UNIX = 1;
    static final int AF_UNSPEC = 0;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;
    static final short POLLIN = 1;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int ECONNREFUSED = 111;
    static final int ENOTCONN = 107;
    /** sizeof(struct sockaddr_un): sa_family_t and sun_path[108]. */
    static final int SOCKADDR_UN = 110;
    private static final int SUN_PATH = 2;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final java.lang.foreign.AddressLayout PTR = ValueLayout.ADDRESS;

    private static final MethodHandle SOCKET = handle("socket", FunctionDescriptor.of(INT, INT, INT, INT));
    private static final MethodHandle BIND = handle("bind", FunctionDescriptor.of(INT, INT, PTR, INT));
    private static final MethodHandle CONNECT = handle("connect", FunctionDescriptor.of(INT, INT, PTR, INT));
    private static final MethodHandle RECVFROM = handle("recvfrom",
            FunctionDescriptor.of(LONG, INT, PTR, LONG, INT, PTR, PTR));
    private static final MethodHandle SENDTO = handle("sendto", FunctionDescriptor.of(LONG, INT, PTR, LONG, INT, PTR, INT));
    private static final MethodHandle POLL = handle("poll", FunctionDescriptor.of(INT, PTR, LONG, INT));
    private static final MethodHandle EVENTFD = handle("eventfd", FunctionDescriptor.of(INT, INT, INT));
    private static final MethodHandle WRITE = handle("write", FunctionDescriptor.of(LONG, INT, PTR, LONG));
    private static final MethodHandle READ = handle("read", FunctionDescriptor.of(LONG, INT, PTR, LONG));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(LIBC.find("strerror").orElseThrow(),
            FunctionDescriptor.of(PTR, INT));

    private static MethodHandle handle(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(), descriptor, Linker.Option.captureCallState("errno"));
    }

    /** One errno capture segment per thread. */
    private static final ThreadLocal<MemorySegment> CAPTURES = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));

    static int errno() {
        return (int) ERRNO.get(CAPTURES.get(), 0L);
    }

    static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** A {@code struct sockaddr_un} for an abstract name, and its length as bind/connect take it. */
    record Name(String text, MemorySegment address, int length) {}

    static Name abstractName(String text, Arena arena) {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        if (bytes.length > SOCKADDR_UN - SUN_PATH - 2) {
            throw new IllegalArgumentException("abstract socket name '" + text + "': at most "
                    + (SOCKADDR_UN - SUN_PATH - 2) + " octets allowed");
        }
        MemorySegment a = arena.allocate(SOCKADDR_UN, 2);
        a.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(bytes, 0, a, ValueLayout.JAVA_BYTE, SUN_PATH + 1, bytes.length);
        return new Name(text, a, SUN_PATH + 1 + bytes.length + 1); // the allocation is zeroed: the trailing NUL
    }

    /** The name in a {@code struct sockaddr_un} of {@code length} octets ("@name" for an abstract one, as ss prints it). */
    static String nameOf(MemorySegment address, int length) {
        if (length <= SUN_PATH) {
            return "(unnamed)";
        }
        byte[] path = new byte[length - SUN_PATH];
        MemorySegment.copy(address, ValueLayout.JAVA_BYTE, SUN_PATH, path, 0, path.length);
        if (path[0] == 0) {
            int end = path.length;
            while (end > 1 && path[end - 1] == 0) {
                end--;
            }
            return "@" + new String(path, 1, end - 1, StandardCharsets.ISO_8859_1);
        }
        int end = 0;
        while (end < path.length && path[end] != 0) {
            end++;
        }
        return new String(path, 0, end, StandardCharsets.ISO_8859_1);
    }

    /** A non-blocking, close-on-exec datagram socket bound to an abstract name. */
    static int bound(Name name) throws IOException {
        int fd = callInt(() -> (int) SOCKET.invokeExact(CAPTURES.get(), AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (fd < 0) {
            throw new IOException("socket(AF_UNIX, SOCK_DGRAM): " + strerror(errno()));
        }
        int r = callInt(() -> (int) BIND.invokeExact(CAPTURES.get(), fd, name.address(), name.length()));
        if (r < 0) {
            int e = errno();
            close(fd);
            throw new IOException("cannot bind abstract socket '" + name.text() + "': " + strerror(e));
        }
        return fd;
    }

    /** connect(2); returns 0 or -errno. */
    static int connect(int fd, MemorySegment address, int length) {
        int r = callInt(() -> (int) CONNECT.invokeExact(CAPTURES.get(), fd, address, length));
        return r < 0 ? -errno() : 0;
    }

    /** recvfrom(2) into {@code buffer}; the sender's address into {@code from}, its length into {@code fromLength}. */
    static long recvfrom(int fd, MemorySegment buffer, MemorySegment from, MemorySegment fromLength) {
        fromLength.set(INT, 0, SOCKADDR_UN);
        long n = callLong(() -> (long) RECVFROM.invokeExact(CAPTURES.get(), fd, buffer, buffer.byteSize(), 0, from, fromLength));
        return n < 0 ? -errno() : n;
    }

    /** sendto(2), or send(2) on a connected socket when {@code to} is NULL; returns the octets sent or -errno. */
    static long sendto(int fd, MemorySegment buffer, long length, MemorySegment to, int toLength) {
        long n = callLong(() -> (long) SENDTO.invokeExact(CAPTURES.get(), fd, buffer, length, 0, to, toLength));
        return n < 0 ? -errno() : n;
    }

    /** poll(2) on {@code count} {@code struct pollfd}s; returns the number ready, or -errno. */
    static int poll(MemorySegment fds, int count, int timeoutMillis) {
        int r = callInt(() -> (int) POLL.invokeExact(CAPTURES.get(), fds, (long) count, timeoutMillis));
        return r < 0 ? -errno() : r;
    }

    /** A non-blocking eventfd to end a poll from another thread. */
    static int eventfd() throws IOException {
        int fd = callInt(() -> (int) EVENTFD.invokeExact(CAPTURES.get(), 0, EFD_NONBLOCK | EFD_CLOEXEC));
        if (fd < 0) {
            throw new IOException("eventfd: " + strerror(errno()));
        }
        return fd;
    }

    static void signal(int eventFd, MemorySegment eightOctets) {
        eightOctets.set(LONG, 0, 1L);
        long ignored = callLong(() -> (long) WRITE.invokeExact(CAPTURES.get(), eventFd, eightOctets, 8L));
    }

    static void drain(int eventFd, MemorySegment eightOctets) {
        long ignored = callLong(() -> (long) READ.invokeExact(CAPTURES.get(), eventFd, eightOctets, 8L));
    }

    static void close(int fd) {
        if (fd >= 0) {
            int ignored = callInt(() -> (int) CLOSE.invokeExact(CAPTURES.get(), fd));
        }
    }

    @FunctionalInterface
    private interface IntCall {
        int call() throws Throwable;
    }

    @FunctionalInterface
    private interface LongCall {
        long call() throws Throwable;
    }

    private static int callInt(IntCall c) {
        try {
            return c.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static long callLong(LongCall c) {
        try {
            return c.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
