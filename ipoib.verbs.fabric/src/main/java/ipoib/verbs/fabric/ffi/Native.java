package ipoib.verbs.fabric.ffi;

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
import java.util.Map;
import java.util.Optional;

/** Shared pieces of the bindings: the linker, library loading, errno capture and names. */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class Native {
    private Native() {}

    public static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** A loaded library, or why it could not be loaded. */
    public record Library(String name, SymbolLookup lookup, String failure) {
        public boolean loaded() {
            return lookup != null;
        }

        /**
         * Checks that the library has every one of {@code symbols}, without binding them.
         *
         * @throws UnsatisfiedLinkError naming the library and the first missing symbol
         */
        public void require(java.util.List<String> symbols) {
            for (String symbol : symbols) {
                if (lookup.find(symbol).isEmpty()) {
                    throw new UnsatisfiedLinkError(name + " has no symbol " + symbol);
                }
            }
        }

        /**
         * A downcall handle of an exported function.
         *
         * @throws UnsatisfiedLinkError naming the library when the symbol is missing
         */
        public MethodHandle function(String symbol, FunctionDescriptor descriptor, boolean captureErrno) {
            MemorySegment address = lookup.find(symbol)
                    .orElseThrow(() -> new UnsatisfiedLinkError(name + " has no symbol " + symbol));
            return captureErrno
                    ? LINKER.downcallHandle(address, descriptor, CAPTURE_ERRNO)
                    : LINKER.downcallHandle(address, descriptor);
        }
    }

    /**
     * Loads a shared library by file name (e.g. {@code libibverbs.so.1}) or path. The library
     * stays loaded for the life of the JVM (global arena): unloading libibverbs while one of its
     * provider plugins is still mapped is not safe, and the handle costs nothing.
     */
    public static Library load(String name) {
        try {
            return new Library(name, SymbolLookup.libraryLookup(name, Arena.global()), null);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return new Library(name, null, name + " cannot be loaded: " + e.getMessage());
        }
    }

    /** A downcall handle of a C function pointer, to be bound to an address. */
    public static MethodHandle pointerHandle(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /** A segment that receives the errno of a call made through a capturing handle. */
    public static MemorySegment errnoSegment(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The errno captured in {@link #errnoSegment}. */
    public static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** Reads a NUL-terminated C string, or "" for NULL. */
    public static String string(MemorySegment pointer) {
        if (pointer.equals(MemorySegment.NULL)) {
            return "";
        }
        return pointer.reinterpret(4096).getString(0);
    }

    /** Errno names (Linux, x86-64 and aarch64 share them); LayoutTest checks them against errno.h. */
    public static final Map<Integer, String> ERRNO_NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(2, "ENOENT"), Map.entry(4, "EINTR"), Map.entry(5, "EIO"),
            Map.entry(6, "ENXIO"), Map.entry(9, "EBADF"), Map.entry(11, "EAGAIN"), Map.entry(12, "ENOMEM"),
            Map.entry(13, "EACCES"), Map.entry(14, "EFAULT"), Map.entry(16, "EBUSY"), Map.entry(17, "EEXIST"),
            Map.entry(19, "ENODEV"), Map.entry(22, "EINVAL"), Map.entry(24, "EMFILE"), Map.entry(28, "ENOSPC"),
            Map.entry(38, "ENOSYS"), Map.entry(61, "ENODATA"), Map.entry(71, "EPROTO"),
            Map.entry(93, "EPROTONOSUPPORT"), Map.entry(95, "EOPNOTSUPP"), Map.entry(110, "ETIMEDOUT"));

    /** {@code "errno 38 (ENOSYS)"}. */
    public static String describeErrno(int errno) {
        return "errno " + errno + Optional.ofNullable(ERRNO_NAMES.get(errno)).map(n -> " (" + n + ")").orElse("");
    }

    /** A zeroed native struct of a layout. */
    public static MemorySegment allocate(Arena arena, MemoryLayout layout) {
        return arena.allocate(layout);
    }

    /** Byte view: network-order 16-bit value at an offset of a segment. */
    public static int beShort(MemorySegment s, long offset) {
        return Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                offset));
    }
}
