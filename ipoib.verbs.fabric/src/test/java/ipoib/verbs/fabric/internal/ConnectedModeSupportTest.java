package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hardware provider refuses connected mode with the reason a user can act on: it registers a
 * umad agent for the CM class as a user-space CM would, against src/test/c/fake_umad.c, which can
 * hold the class as the kernel's ib_cm does (the refusal is the kernel's -EINVAL from
 * ib_register_mad_agent; see CmClassProbe). The kernel's behaviour itself is cited, not tested:
 * that needs an HCA with ib_cm loaded.
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
class ConnectedModeSupportTest {
    @TempDir
    static Path dir;
    private static FakeVerbsLibrary verbs;
    private static FakeVerbsLibrary umad;
    private static MethodHandle kernelCm;
    private static MethodHandle umadState;
    private static MethodHandle umadReset;
    private static MethodHandle verbsReset;
    private static MethodHandle linkLayer;

    private FabricRuntime runtime;

    @BeforeAll
    static void buildTheFakes() throws Exception {
        verbs = FakeVerbsLibrary.build(dir, "fake_verbs.c");
        umad = FakeVerbsLibrary.build(dir, "fake_umad.c");
        kernelCm = umad.hook("fake_umad_kernel_cm", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
        umadState = umad.hook("fake_umad", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        umadReset = umad.hook("fake_umad_reset", FunctionDescriptor.ofVoid());
        verbsReset = verbs.hook("fake_reset", FunctionDescriptor.ofVoid());
        linkLayer = verbs.hook("fake_set_link_layer", FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT));
    }

    @BeforeEach
    void reset() throws Throwable {
        umadReset.invokeExact();
        verbsReset.invokeExact();
    }

    @AfterEach
    void stop() throws Throwable {
        if (runtime != null) {
            runtime.close();
        }
        assertEquals(0, umad("open"), "the probe closes the umad port it opened");
        assertEquals(0, umad("agents"), "the probe unregisters its agent");
        assertEquals("", verbs.text("fake_leaks"));
    }

    private static long umad(String what) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            return (long) umadState.invokeExact(a.allocateFrom(what));
        }
    }

    private ProviderStatus support(String umadLibrary) {
        runtime = FabricRuntime.start(new FabricRuntime.Settings(verbs.path, umadLibrary, Pattern.compile(".*"),
                1000, 3, 1), new TestConfig.RecordingLog().fabricLog());
        return runtime.devices().get(0).port(1).connectedModeSupport();
    }

    @Test
    void whileTheKernelsIbCmHoldsTheCmClassConnectedModeIsRefusedWithThatReason() throws Throwable {
        kernelCm.invokeExact(1);
        ProviderStatus s = support(umad.path);
        assertFalse(s.available());
        assertEquals("connected mode is not available on fake0/1: the kernel's ib_cm owns the CM class (0x07) of the "
                + "port (umad_register(class 0x07, version 2, method Send) failed: errno 22 (EINVAL); ib_mad gives "
                + "each class and method to one agent). A user-space CM needs ib_cm unloaded, with ib_ipoib, rdma_cm "
                + "and the other modules that use it; the interface stays in datagram mode", s.reason());
        assertEquals(0x07, umad("class"));
        assertEquals(2, umad("version"));
        assertEquals(1L << 3, umad("mask"), "the Send method, which every CM message uses");
        assertTrue(DeviceReport.port(provider(), "fake0", 1).contains("\n  connected mode: " + s.reason() + "\n"),
                "the fabric:port report shows it");
        assertEquals(s.reason(), assertThrows(VerbsException.class,
                () -> runtime.devices().get(0).port(1).cmTransport()).getMessage(), "the link's CM agent gets the reason");
    }

    private ipoib.api.verbs.VerbsProvider provider() {
        FabricRuntime r = runtime;
        return new ipoib.api.verbs.VerbsProvider() {
            @Override
            public String name() {
                return "fabric";
            }

            @Override
            public ProviderStatus status() {
                return r.status();
            }

            @Override
            public java.util.List<ipoib.api.verbs.Device> devices() {
                return r.devices();
            }
        };
    }

    @Test
    void withTheClassFreeTheMissingCmTransportIsTheReason() throws Throwable {
        ProviderStatus s = support(umad.path);
        assertFalse(s.available());
        assertEquals("connected mode is not available on fake0/1: the CM class (0x07) of the port is free (ib_cm is "
                + "not loaded) and RC queue pairs work, but this provider has no CM MAD transport over umad yet; "
                + "connected mode runs on the loopback fabric", s.reason());
    }

    @Test
    void aRoCEPortHasNoIpoib() throws Throwable {
        linkLayer.invokeExact(2); // IBV_LINK_LAYER_ETHERNET
        ProviderStatus s = support(umad.path);
        assertEquals("connected mode is not available on fake0/1: the port is Ethernet (RoCE), and IPoIB runs on "
                + "InfiniBand ports", s.reason());
        assertEquals(-1, umad("class"), "no agent was tried");
    }

    @Test
    void withoutLibibumadTheClassCannotBeChecked() {
        ProviderStatus s = support("libibumad-missing.so.3");
        assertFalse(s.available());
        assertTrue(s.reason().startsWith("connected mode is not available on fake0/1: the CM class (0x07) could not "
                + "be checked (libibumad not available: libibumad-missing.so.3 cannot be loaded"), s.reason());
    }
}
