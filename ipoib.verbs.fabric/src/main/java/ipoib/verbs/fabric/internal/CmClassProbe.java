package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Umad;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Whether connected mode can run on a hardware port, and why not. Connected mode needs RC queue
 * pairs and a shared receive queue (verbs: this provider has them when the device does) and a
 * communication manager that receives the CM MADs (management class 0x07) of the port.
 *
 * <p>On Linux the kernel's {@code ib_cm} registers a MAD agent for class 0x07, version 2, method
 * Send on every port when it loads (drivers/infiniband/core/cm.c, {@code cm_add_one}:
 * {@code set_bit(IB_MGMT_METHOD_SEND, reg_req.method_mask)} and {@code ib_register_mad_agent}),
 * and every CM message (REQ, REP, RTU, REJ, MRA, DREQ, DREP) is a Send. ib_mad gives each class,
 * version and method to one agent: a second registration of the same method fails in
 * {@code ib_register_mad_agent} when {@code method_in_use} finds it taken
 * (drivers/infiniband/core/mad.c; the call returns {@code -EINVAL}), and user_mad.c's
 * {@code ib_umad_reg_agent} hands that error to {@code umad_register}. So while ib_cm is loaded
 * (and ib_ipoib, rdma_cm, ib_srp and the others that need it keep it loaded) a user-space CM
 * cannot receive a REQ. The probe tries exactly that registration and reports the refusal.
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class CmClassProbe {
    private CmClassProbe() {}

    /** IBA 16.7 / 12.6: the communication management class. */
    static final int CM_CLASS = 0x07;
    static final int CM_CLASS_VERSION = 2;
    /** Every CM message uses the Send method (IBA 12.6.1). */
    static final int METHOD_SEND = 0x03;

    /** What the registration attempt found. */
    enum Outcome { REFUSED, FREE, UNKNOWN }

    record Result(Outcome outcome, String detail) {}

    static ProviderStatus connectedModeSupport(FabricPort port) {
        FabricDevice device = port.device;
        String where = device.name() + "/" + port.number();
        int linkLayer;
        try {
            linkLayer = port.linkLayer();
        } catch (VerbsException e) {
            return ProviderStatus.unavailable("connected mode is not available on " + where + ": " + e.getMessage());
        }
        if (linkLayer == Consts.IBV_LINK_LAYER_ETHERNET) {
            return ProviderStatus.unavailable("connected mode is not available on " + where
                    + ": the port is Ethernet (RoCE), and IPoIB runs on InfiniBand ports");
        }
        if (device.ops.postSrqRecv == null || device.limits.maxSrq() == 0) {
            return ProviderStatus.unavailable("connected mode is not available on " + where
                    + ": the device offers no shared receive queues (max_srq " + device.limits.maxSrq() + ")");
        }
        Result r;
        try {
            r = probe(device.runtime.umad(), device.name(), port.number());
        } catch (VerbsException e) {
            r = new Result(Outcome.UNKNOWN, e.getMessage());
        }
        return ProviderStatus.unavailable(switch (r.outcome()) {
            case REFUSED -> "connected mode is not available on " + where + ": the kernel's ib_cm owns the CM class "
                    + "(0x07) of the port (" + r.detail() + "; ib_mad gives each class and method to one agent). "
                    + "A user-space CM needs ib_cm unloaded, with ib_ipoib, rdma_cm and the other modules that "
                    + "use it; the interface stays in datagram mode";
            case FREE -> "connected mode is not available on " + where + ": the CM class (0x07) of the port is free "
                    + "(ib_cm is not loaded) and RC queue pairs work, but this provider has no CM MAD transport "
                    + "over umad yet; connected mode runs on the loopback fabric";
            case UNKNOWN -> "connected mode is not available on " + where + ": the CM class (0x07) could not be "
                    + "checked (" + r.detail() + ")";
        });
    }

    /**
     * Opens the port's umad device and tries to register an agent for class 0x07 version 2 with
     * the Send method, as a user-space CM would; unregisters at once when it succeeds.
     */
    static Result probe(Umad umad, String caName, int port) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) umad.init.invokeExact();
            if (rc < 0) {
                return new Result(Outcome.UNKNOWN, "umad_init failed: " + rc);
            }
            int fd = (int) umad.openPort.invokeExact(a.allocateFrom(caName), port);
            if (fd < 0) {
                return new Result(Outcome.UNKNOWN, "umad_open_port(" + caName + ", " + port + ") failed: "
                        + Native.describeErrno(-fd) + "; check the permissions of /dev/infiniband/umad*");
            }
            try {
                MemorySegment mask = a.allocate(16, 8);
                mask.set(ValueLayout.JAVA_LONG, 0, 1L << METHOD_SEND);
                int agent = (int) umad.register.invokeExact(fd, CM_CLASS, CM_CLASS_VERSION, (byte) 0, mask);
                if (agent < 0) {
                    return new Result(Outcome.REFUSED, "umad_register(class 0x07, version 2, method Send) failed: "
                            + Native.describeErrno(-agent));
                }
                int ignored = (int) umad.unregister.invokeExact(fd, agent);
                return new Result(Outcome.FREE, "umad_register(class 0x07, version 2, method Send) succeeded");
            } finally {
                int ignored = (int) umad.closePort.invokeExact(fd);
            }
        } catch (Throwable t) {
            return new Result(Outcome.UNKNOWN, "the umad calls failed: " + t);
        }
    }
}
