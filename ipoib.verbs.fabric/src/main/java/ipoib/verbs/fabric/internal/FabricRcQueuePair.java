package ipoib.verbs.fabric.internal;

import ipoib.api.IbMtu;
import ipoib.api.Qpn;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairEvent;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An RC {@code ibv_qp} (IBV_QPT_RC), created in INIT; {@link #readyToReceive} and
 * {@link #readyToSend} make the transitions with exactly the attributes ibv_modify_qp(3) requires
 * of an RC queue pair (rdma-core 691953d, libibverbs/man/ibv_modify_qp.3:154-164; the mask bits of
 * enum ibv_qp_attr_mask, libibverbs/verbs.h:1044-1061) and the values Linux's CM puts there
 * (drivers/infiniband/core/cm.c, cm_init_qp_rtr_attr at 3511-3582 and cm_init_qp_rts_attr at
 * 3584-3641 of OFED compat-rdma 81333f0, a Linux 4.x tree), which IPoIB applies through
 * ib_cm_init_qp_attr (drivers/infiniband/ulp/ipoib/ipoib_cm.c: ipoib_cm_modify_rx_qp at 272-325
 * on the passive side, ipoib_cm_rep_handler at 954-1020 on the active side):
 * <ul>
 * <li>RTR: IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
 * IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER; max_dest_rd_atomic 0 (IPoIB does no RDMA
 * read: ipoib_cm_send_rep sets no responder resources, so the passive side's are 0 and so is the
 * active side's from the REP), min_rnr_timer 0 as cm.c sets it;</li>
 * <li>RTS: IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
 * IBV_QP_MAX_QP_RD_ATOMIC; max_rd_atomic 0 (the initiator depth of IPoIB's REP). The timeout,
 * retry and RNR retry counts are the caller's (IPoIB asks retry_count 0 and rnr_retry_count 0 in
 * ipoib_cm_send_req, ipoib_cm.c:1079-1080, "RFC draft warns against retries").</li>
 * </ul>
 *
 * <p>Posting writes one preallocated work request per direction, as the UD queue pair does, so the
 * data path allocates nothing. Error completions of the send queue (retry exceeded, a NAK) mean
 * the HCA moved the queue pair to ERROR; {@link #state} follows them, and the asynchronous events
 * of the queue pair reach the listeners from the device's event thread.
 *
 * <p>Closing a queue pair of a shared receive queue: a driver removes the destroyed queue pair's
 * completions from its CQs (mlx5 does), and a buffer of the SRQ consumed by one of them is lost to
 * its poster. Close it as Linux's ipoib_cm does: {@link #toError}, wait for
 * {@link RcQueuePairEvent.Type#LAST_WQE_REACHED} and for its receive completions, then close.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FabricRcQueuePair implements RcQueuePair, CompletionOwner {
    /** The RTR mask of an RC queue pair (ibv_modify_qp(3); cm.c cm_init_qp_rtr_attr). */
    static final int RTR_MASK = Consts.IBV_QP_STATE | Consts.IBV_QP_AV | Consts.IBV_QP_PATH_MTU
            | Consts.IBV_QP_DEST_QPN | Consts.IBV_QP_RQ_PSN | Consts.IBV_QP_MAX_DEST_RD_ATOMIC
            | Consts.IBV_QP_MIN_RNR_TIMER;
    /** The RTS mask of an RC queue pair (ibv_modify_qp(3); cm.c cm_init_qp_rts_attr). */
    static final int RTS_MASK = Consts.IBV_QP_STATE | Consts.IBV_QP_SQ_PSN | Consts.IBV_QP_TIMEOUT
            | Consts.IBV_QP_RETRY_CNT | Consts.IBV_QP_RNR_RETRY | Consts.IBV_QP_MAX_QP_RD_ATOMIC;

    final FabricPort port;
    final FabricDevice device;
    final MemorySegment qp;
    private final int qpnValue;
    private final Qpn qpn;
    final FabricCompletionQueue sendCq;
    final FabricCompletionQueue recvCq;
    /** Where its receive buffers come from, or null for a receive queue of its own. */
    final FabricSharedReceiveQueue srq;
    private final Arena arena = Arena.ofShared();
    private final SingleWorkRequest sendRequest;
    private final SingleWorkRequest recvRequest;
    private final Object stateLock = new Object();
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    private final WorkSlots sendSlots;
    private final WorkSlots recvSlots;
    private final CopyOnWriteArrayList<Consumer<RcQueuePairEvent>> listeners = new CopyOnWriteArrayList<>();
    private volatile QueuePairState state = QueuePairState.INIT;
    private volatile boolean closed;

    FabricRcQueuePair(FabricPort port, MemorySegment qp, FabricCompletionQueue sendCq, FabricCompletionQueue recvCq,
                      FabricSharedReceiveQueue srq, int sendDepth, int recvDepth) {
        this.port = port;
        this.device = port.device;
        this.qp = qp.reinterpret(Structs.IBV_QP.byteSize());
        this.qpnValue = this.qp.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_QP, "qp_num"));
        this.qpn = new Qpn(qpnValue);
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        sendRequest = SingleWorkRequest.send(arena, "post_send");
        recvRequest = SingleWorkRequest.receive(arena, "post_recv");
        sendSlots = new WorkSlots(sendDepth);
        recvSlots = srq == null ? new WorkSlots(recvDepth) : null;
    }

    @Override
    public Qpn qpn() {
        return qpn;
    }

    @Override
    public int queuePairNumber() {
        return qpnValue;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    @Override
    public void readyToReceive(RcReceiveAttributes a) {
        if (a == null) {
            throw new VerbsException("RC QP " + qpn + ": RTR needs its attributes");
        }
        synchronized (stateLock) {
            checkOpen("RTR");
            if (state != QueuePairState.INIT) {
                throw new VerbsException("RC QP " + qpn + ": RTR needs INIT, the queue pair is " + state);
            }
            // The path MTU cannot exceed the port's (the HCA refuses it): the smaller one is used.
            IbMtu portMtu = port.attributes().activeMtu();
            IbMtu mtu = a.pathMtu().bytes() <= portMtu.bytes() ? a.pathMtu() : portMtu;
            try (Arena t = Arena.ofConfined()) {
                MemorySegment attr = t.allocate(Structs.IBV_QP_ATTR);
                var l = Structs.IBV_QP_ATTR;
                attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "qp_state"), Consts.IBV_QPS_RTR);
                FabricPort.fillAddressVector(attr, Structs.offset(l, "ah_attr"), a.destination(), port.number());
                attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "path_mtu"), mtu.code()); // enum ibv_mtu = IBA code
                attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "dest_qp_num"), a.remoteQpn().value());
                attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "rq_psn"), a.receivePsn());
                attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "max_dest_rd_atomic"), (byte) 0);
                attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "min_rnr_timer"), (byte) 0);
                modify(attr, RTR_MASK, "RTR");
            }
            state = QueuePairState.RTR;
        }
    }

    @Override
    public void readyToSend(RcSendAttributes a) {
        if (a == null) {
            throw new VerbsException("RC QP " + qpn + ": RTS needs its attributes");
        }
        synchronized (stateLock) {
            checkOpen("RTS");
            if (state != QueuePairState.RTR) {
                throw new VerbsException("RC QP " + qpn + ": RTS needs RTR, the queue pair is " + state);
            }
            try (Arena t = Arena.ofConfined()) {
                MemorySegment attr = t.allocate(Structs.IBV_QP_ATTR);
                var l = Structs.IBV_QP_ATTR;
                attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "qp_state"), Consts.IBV_QPS_RTS);
                attr.set(ValueLayout.JAVA_INT, Structs.offset(l, "sq_psn"), a.sendPsn());
                attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "timeout"), (byte) a.timeout());
                attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "retry_cnt"), (byte) a.retryCount());
                attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "rnr_retry"), (byte) a.rnrRetry());
                attr.set(ValueLayout.JAVA_BYTE, Structs.offset(l, "max_rd_atomic"), (byte) 0);
                modify(attr, RTS_MASK, "RTS");
            }
            state = QueuePairState.RTS;
        }
    }

    @Override
    public void toError() {
        synchronized (stateLock) {
            if (closed || state == QueuePairState.ERROR) {
                state = QueuePairState.ERROR;
                return;
            }
            try (Arena t = Arena.ofConfined()) {
                MemorySegment attr = t.allocate(Structs.IBV_QP_ATTR);
                attr.set(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_QP_ATTR, "qp_state"), Consts.IBV_QPS_ERR);
                modify(attr, Consts.IBV_QP_STATE, "ERROR");
            }
            // The HCA flushes what is outstanding: those completions arrive on the CQs.
            state = QueuePairState.ERROR;
        }
    }

    private void modify(MemorySegment attr, int mask, String to) {
        int rc;
        try {
            rc = (int) device.ibv.modifyQp.invokeExact(qp, attr, mask);
        } catch (Throwable t) {
            throw new VerbsException("ibv_modify_qp(" + to + ") of RC QP " + qpn + " failed", 0, t);
        }
        if (rc != 0) {
            throw new VerbsException("ibv_modify_qp(" + to + ") of RC QP " + qpn + " on " + port + " failed: "
                    + Native.describeErrno(Math.abs(rc)), Math.abs(rc), null);
        }
    }

    @Override
    public boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length) {
        if (srq != null) {
            throw new VerbsException("RC QP " + qpn + " takes its buffers from a shared receive queue: post there");
        }
        FabricMemoryRegion mr = FabricMemoryRegion.of(region, device, "post receive");
        long address = mr.bufferAddress(offset, length, "post receive");
        synchronized (recvLock) {
            checkOpen("post receive");
            return recvRequest.post(recvSlots, workRequestId, device.ops.postRecv, qp, address, length, mr.localKey());
        }
    }

    @Override
    public boolean postSend(long workRequestId, MemoryRegion region, long offset, int length) {
        FabricMemoryRegion mr = FabricMemoryRegion.of(region, device, "post send");
        long address = mr.bufferAddress(offset, length, "post send");
        QueuePairState s = state;
        if (s != QueuePairState.RTS && s != QueuePairState.ERROR) {
            throw new VerbsException("post send: RC QP " + qpn + " is " + s + ", not RTS");
        }
        synchronized (sendLock) {
            checkOpen("post send");
            return sendRequest.post(sendSlots, workRequestId, device.ops.postSend, qp, address, length, mr.localKey());
        }
    }

    @Override
    public boolean completed(boolean send, int slot, long[] id) {
        if (!send && srq != null) {
            return srq.completed(slot, id);
        }
        WorkSlots slots = send ? sendSlots : recvSlots;
        synchronized (send ? sendLock : recvLock) {
            if (!slots.release(slot)) {
                return false;
            }
            id[0] = slots.id(slot);
            return true;
        }
    }

    @Override
    public void completedWithError() {
        // An error completion other than a flush: the HCA moved the queue pair to ERROR (IBA 10.3.1).
        state = QueuePairState.ERROR;
    }

    private void checkOpen(String what) {
        if (closed) {
            throw new VerbsException(what + ": RC queue pair " + qpn + " is closed");
        }
    }

    @Override
    public AutoCloseable addEventListener(Consumer<RcQueuePairEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** An async event of this queue pair (on the device's event thread). */
    void raise(RcQueuePairEvent.Type type) {
        if (type != RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED && type != RcQueuePairEvent.Type.LAST_WQE_REACHED) {
            state = QueuePairState.ERROR;
        }
        RcQueuePairEvent event = new RcQueuePairEvent(this, type);
        for (Consumer<RcQueuePairEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                device.log.warn("RC event listener failed on " + type + " of " + this, e);
            }
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        device.closeRcQueuePair(this);
    }

    /**
     * Destroys the QP; called by the device, once. Work still outstanding completes with a flush
     * error made up here (drivers remove a destroyed QP's completions from its CQs); buffers of a
     * shared receive queue stay with the queue.
     */
    void destroy() {
        synchronized (stateLock) {
            synchronized (sendLock) {
                synchronized (recvLock) {
                    if (closed) {
                        return;
                    }
                    closed = true;
                    state = QueuePairState.ERROR;
                }
            }
        }
        device.call("ibv_destroy_qp", () -> (int) device.ibv.destroyQp.invokeExact(qp));
        long[] sendFlushes;
        long[] recvFlushes = new long[0];
        synchronized (sendLock) {
            sendFlushes = sendSlots.drainInPostOrder();
        }
        if (recvSlots != null) {
            synchronized (recvLock) {
                recvFlushes = recvSlots.drainInPostOrder();
            }
        }
        FabricCompletionQueue.destroyed(this, sendCq, sendFlushes, recvCq, recvFlushes);
        if (srq != null) {
            srq.detach();
        }
        arena.close();
    }

    @Override
    public String toString() {
        return "RC QP " + qpn + " on " + port + " (" + state + ")";
    }
}
