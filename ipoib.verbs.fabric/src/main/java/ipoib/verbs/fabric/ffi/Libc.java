package ipoib.verbs.fabric.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few C library calls the provider needs to wait on file descriptors with a timeout
 * ({@code poll}) and to wake a waiter ({@code eventfd}): the completion channel and the async
 * event fd of libibverbs block in {@code read}, which cannot be interrupted from Java.
 */
public final class Libc {
    private Libc() {}

    public static final StructLayout POLLFD = Structs.POLLFD;

    private static final Native.Library C = new Native.Library("libc",
            Native.LINKER.defaultLookup(), null);

    /** {@code int poll(struct pollfd *, nfds_t, int timeout)}; errno captured. */
    public static final MethodHandle POLL = C.function("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), true);
    /** {@code int eventfd(unsigned int initval, int flags)}; errno captured. */
    public static final MethodHandle EVENTFD = C.function("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), true);
    /** {@code ssize_t read(int, void *, size_t)}. */
    public static final MethodHandle READ = C.function("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), false);
    /** {@code ssize_t write(int, const void *, size_t)}. */
    public static final MethodHandle WRITE = C.function("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), false);
    /** {@code int close(int)}. */
    public static final MethodHandle CLOSE = C.function("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), false);
}
