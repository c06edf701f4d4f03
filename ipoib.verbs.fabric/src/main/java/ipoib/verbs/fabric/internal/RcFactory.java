package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Creates the RC resources of a port: shared receive queues ({@code ibv_create_srq}) and RC queue
 * pairs ({@code ibv_create_qp} with IBV_QPT_RC, then RESET → INIT), after checking the request
 * against the port and the device's limits so that a refusal names what was wrong.
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class RcFactory {
    private RcFactory() {}

    /** The INIT mask of an RC queue pair (ibv_modify_qp(3); cm.c cm_init_qp_init_attr). */
    static final int INIT_MASK = Consts.IBV_QP_STATE | Consts.IBV_QP_PKEY_INDEX | Consts.IBV_QP_PORT
            | Consts.IBV_QP_ACCESS_FLAGS;

    static SharedReceiveQueue createSharedReceiveQueue(FabricPort port, int capacity) {
        FabricDevice device = port.device;
        device.checkOpen("create shared receive queue");
        if (capacity < 1 || capacity > 65536) {
            throw new VerbsException("create shared receive queue: invalid capacity '" + capacity
                    + "': allowed 1..65536");
        }
        if (device.ops.postSrqRecv == null || device.limits.maxSrq() == 0) {
            throw new VerbsException("create shared receive queue: device " + device.name()
                    + " offers no shared receive queues (max_srq " + device.limits.maxSrq() + ")");
        }
        if (capacity > device.limits.maxSrqWr()) {
            throw new VerbsException("create shared receive queue: capacity " + capacity
                    + " exceeds the device's max_srq_wr " + device.limits.maxSrqWr());
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment init = a.allocate(Structs.IBV_SRQ_INIT_ATTR);
            FabricPort.setInt(init, Structs.IBV_SRQ_INIT_ATTR, "attr.max_wr", capacity);
            FabricPort.setInt(init, Structs.IBV_SRQ_INIT_ATTR, "attr.max_sge", 1);
            MemorySegment srq = (MemorySegment) device.ibv.createSrq.invokeExact(errno, device.pd, init);
            if (srq.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_create_srq(" + capacity + ") on " + device.name() + " failed: "
                        + Native.describeErrno(e), e, null);
            }
            FabricSharedReceiveQueue q = new FabricSharedReceiveQueue(device, srq, capacity);
            device.register(q);
            return q;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("create shared receive queue failed", 0, t);
        }
    }

    static RcQueuePair createRcQueuePair(FabricPort port, RcQueuePairConfig config) {
        FabricDevice device = port.device;
        device.checkOpen("create RC QP");
        if (config == null) {
            throw new VerbsException("create RC QP: the configuration must not be null");
        }
        PortAttributes attrs = port.attributes();
        if (!attrs.isActive()) {
            throw new VerbsException("create RC QP: port " + port + " is " + attrs.state() + ", not ACTIVE");
        }
        PKeyTable pkeys = port.pkeyTable();
        if (pkeys.get(config.pkeyIndex()).isEmpty()) {
            throw new VerbsException("create RC QP: P_Key index " + config.pkeyIndex()
                    + " is not a valid entry of port " + port + " (table " + pkeys + ")");
        }
        if (!(config.sendCompletionQueue() instanceof FabricCompletionQueue sendCq) || sendCq.device != device
                || !(config.receiveCompletionQueue() instanceof FabricCompletionQueue recvCq) || recvCq.device != device
                || sendCq.isClosed() || recvCq.isClosed()) {
            throw new VerbsException("create RC QP: completion queues must be open queues of device " + device.name());
        }
        FabricSharedReceiveQueue srq = null;
        if (config.sharedReceiveQueue() != null) {
            if (!(config.sharedReceiveQueue() instanceof FabricSharedReceiveQueue s) || s.device != device
                    || s.isClosed()) {
                throw new VerbsException("create RC QP: the shared receive queue must be an open queue of device "
                        + device.name());
            }
            srq = s;
        }
        int maxWr = device.limits.maxQpWr();
        int recvDepth = srq == null ? config.receiveQueueDepth() : 0;
        if (config.sendQueueDepth() > maxWr || recvDepth > maxWr) {
            throw new VerbsException("create RC QP: queue depths " + config.sendQueueDepth() + "/" + recvDepth
                    + " exceed the device's max_qp_wr " + maxWr);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment init = a.allocate(Structs.IBV_QP_INIT_ATTR);
            var l = Structs.IBV_QP_INIT_ATTR;
            FabricPort.set(init, l, "send_cq", sendCq.cq);
            FabricPort.set(init, l, "recv_cq", recvCq.cq);
            FabricPort.set(init, l, "srq", srq == null ? MemorySegment.NULL : srq.srq);
            FabricPort.setInt(init, l, "cap.max_send_wr", config.sendQueueDepth());
            FabricPort.setInt(init, l, "cap.max_recv_wr", recvDepth);
            FabricPort.setInt(init, l, "cap.max_send_sge", 1);
            FabricPort.setInt(init, l, "cap.max_recv_sge", srq == null ? 1 : 0);
            FabricPort.setInt(init, l, "qp_type", Consts.IBV_QPT_RC);
            FabricPort.setInt(init, l, "sq_sig_all", 1);
            MemorySegment qp = (MemorySegment) device.ibv.createQp.invokeExact(errno, device.pd, init);
            if (qp.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_create_qp(RC) on " + port + " failed: " + Native.describeErrno(e), e,
                        null);
            }
            try {
                toInit(a, qp, port, config.pkeyIndex());
            } catch (RuntimeException e) {
                device.call("ibv_destroy_qp", () -> (int) device.ibv.destroyQp.invokeExact(qp));
                throw e;
            }
            FabricRcQueuePair q = new FabricRcQueuePair(port, qp, sendCq, recvCq, srq, config.sendQueueDepth(),
                    Math.max(recvDepth, 1));
            sendCq.attach(q);
            if (recvCq != sendCq) {
                recvCq.attach(q);
            }
            if (srq != null) {
                srq.attach(recvCq, q.queuePairNumber());
            }
            device.register(q);
            return q;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("create RC QP failed", 0, t);
        }
    }

    /**
     * RESET → INIT with the P_Key index, the port and the access flags ib_cm gives every connected
     * queue pair (cm.c cm_init_qp_init_attr at 3475-3509 of compat-rdma 81333f0:
     * IB_ACCESS_REMOTE_WRITE; no read or atomic access without responder resources). IPoIB's
     * active side sets the same mask itself (ipoib_cm.c ipoib_cm_modify_tx_init, 1086-1107) with
     * IB_ACCESS_LOCAL_WRITE; neither grants anything to a SEND-only peer, since no rkey is ever given.
     */
    private static void toInit(Arena a, MemorySegment qp, FabricPort port, int pkeyIndex) throws Throwable {
        MemorySegment attr = a.allocate(Structs.IBV_QP_ATTR);
        var l = Structs.IBV_QP_ATTR;
        attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "qp_state"), Consts.IBV_QPS_INIT);
        attr.set(ValueLayout.JAVA_SHORT, Structs.offset(l, "pkey_index"), (short) pkeyIndex);
        attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "port_num"), (byte) port.number());
        attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "qp_access_flags"), Consts.IBV_ACCESS_REMOTE_WRITE);
        int rc = (int) port.device.ibv.modifyQp.invokeExact(qp, attr, INIT_MASK);
        if (rc != 0) {
            throw new VerbsException("ibv_modify_qp(INIT) of an RC QP on " + port + " failed: "
                    + Native.describeErrno(Math.abs(rc)), Math.abs(rc), null);
        }
    }
}
