package ipoib.verbs.fabric.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

/**
 * The functions of libibumad that the MAD transport calls. They return a negative errno on
 * failure (umad_open_port, umad_recv, umad_send) or -1, so no errno capture is needed.
 */
public final class Umad {
    public final Native.Library library;
    public final MethodHandle init;
    public final MethodHandle done;
    public final MethodHandle getCasNames;
    public final MethodHandle getPort;
    public final MethodHandle releasePort;
    public final MethodHandle openPort;
    public final MethodHandle closePort;
    public final MethodHandle register;
    public final MethodHandle unregister;
    public final MethodHandle size;
    public final MethodHandle setAddr;
    public final MethodHandle send;
    public final MethodHandle recv;

    private Umad(Native.Library lib) {
        this.library = lib;
        init = lib.function("umad_init", FunctionDescriptor.of(JAVA_INT), false);
        done = lib.function("umad_done", FunctionDescriptor.of(JAVA_INT), false);
        getCasNames = lib.function("umad_get_cas_names", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), false);
        getPort = lib.function("umad_get_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS), false);
        releasePort = lib.function("umad_release_port", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        openPort = lib.function("umad_open_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), false);
        closePort = lib.function("umad_close_port", FunctionDescriptor.of(JAVA_INT, JAVA_INT), false);
        register = lib.function("umad_register",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_BYTE, ADDRESS), false);
        unregister = lib.function("umad_unregister", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), false);
        size = lib.function("umad_size", FunctionDescriptor.of(JAVA_LONG), false);
        setAddr = lib.function("umad_set_addr",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), false);
        send = lib.function("umad_send",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT), false);
        recv = lib.function("umad_recv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
    }

    /** The binding, or a failure message naming the library or the missing symbol. */
    public record Binding(Umad umad, String failure) {}

    /** Loads a libibumad (normally {@code libibumad.so.3}) and binds every function. */
    public static Binding load(String libraryName) {
        Native.Library lib = Native.load(libraryName);
        if (!lib.loaded()) {
            return new Binding(null, lib.failure());
        }
        try {
            return new Binding(new Umad(lib), null);
        } catch (UnsatisfiedLinkError e) {
            return new Binding(null, e.getMessage());
        }
    }
}
