package ipoib.netdev.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The C library's calls as {@code java.lang.foreign} downcalls that capture {@code errno}: each
 * takes a capture segment as its first argument ({@link #capture()}, one per thread, so that no
 * call allocates), and {@link #errno} reads it after a call that failed.
 */
final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final ThreadLocal<MemorySegment> CAPTURES =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(
            LINKER.defaultLookup().find("strerror").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));

    static final MethodHandle OPEN = call("open",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    static final MethodHandle CLOSE = call("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    static final MethodHandle READ = call("read",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    /** ioctl(2) with a pointer argument (a {@code struct ifreq}). */
    static final MethodHandle IOCTL = call("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
            Linker.Option.firstVariadicArg(2));

    private Libc() {
    }

    /** The downcall of {@code name} that captures errno into its first argument. */
    static MethodHandle call(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = Linker.Option.captureCallState("errno");
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor, options);
    }

    /** The calling thread's capture segment. */
    static MemorySegment capture() {
        return CAPTURES.get();
    }

    /** A capture segment of {@code arena}'s lifetime, for a thread that owns its own. */
    static MemorySegment capture(Arena arena) {
        return arena.allocate(CAPTURE);
    }

    /** errno as the last call given {@code capture} left it. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** strerror(3) of {@code errno}, with the number. */
    static String strerror(int errno) {
        try {
            MemorySegment s = (MemorySegment) STRERROR.invokeExact(errno);
            return s.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }

    /** close(2) of a descriptor this process opened; its error, if any, changes nothing for the caller. */
    static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(capture(), fd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
