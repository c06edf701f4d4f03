package ipoib.verbs.fabric.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/**
 * libibverbs, loaded once per library. Bound at once: the three functions that find the devices
 * (on most machines there are none, and that is all the provider calls); the rest
 * ({@link IbvVerbs}) when the first device is opened, though the load checks that the library
 * has them all. The static inline verbs of {@code verbs.h} (post send/receive, poll CQ, request
 * notification, the extended query port) are not exported: {@link IbvContextOps} calls them
 * through the function pointers of an opened context.
 *
 * <p>Handles created with errno capture take a capture segment ({@link Native#errnoSegment})
 * as their first argument: those functions return NULL or -1 and set errno.
 */
public final class Ibv {
    public final Native.Library library;
    public final MethodHandle getDeviceList;
    public final MethodHandle freeDeviceList;
    public final MethodHandle getDeviceName;
    /** Bound on the first {@link #verbs()}. */
    private volatile IbvVerbs verbs;

    private Ibv(Native.Library lib) {
        this.library = lib;
        getDeviceList = lib.function("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        freeDeviceList = lib.function("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS), false);
        getDeviceName = lib.function("ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
        lib.require(IbvVerbs.SYMBOLS);
    }

    /** The functions that work on a device, bound on the first call. */
    public IbvVerbs verbs() {
        IbvVerbs bound = verbs;
        if (bound == null) {
            synchronized (this) {
                bound = verbs;
                if (bound == null) {
                    bound = IbvVerbs.bind(library);
                    verbs = bound;
                }
            }
        }
        return bound;
    }

    /** Whether {@link #verbs()} has bound the device functions: not on a machine without devices. */
    public boolean verbsBound() {
        return verbs != null;
    }

    /** The binding, or a failure message naming the library or the missing symbol. */
    public record Binding(Ibv ibv, String failure) {}

    /**
     * Loads a libibverbs (normally {@code libibverbs.so.1}), binds the functions that find the
     * devices and checks that it has the others.
     */
    public static Binding load(String libraryName) {
        Native.Library lib = Native.load(libraryName);
        if (!lib.loaded()) {
            return new Binding(null, lib.failure());
        }
        try {
            return new Binding(new Ibv(lib), null);
        } catch (UnsatisfiedLinkError e) {
            return new Binding(null, e.getMessage());
        }
    }
}
