package ipoib.verbs.fabric.internal;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.ReceiveWorkRequests;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A UD {@code ibv_qp} in RTS. Posting writes into preallocated chains of {@code ibv_send_wr} /
 * {@code ibv_recv_wr} with their {@code ibv_sge}s (a single post is a chain of one) and calls the
 * driver's post function bound once per context, so the data path allocates nothing.
 *
 * <p>The {@code wr_id} handed to the driver is a slot number (bit 63 set for sends); the
 * caller's work-request id is kept in the slot. That tells send from receive completions even
 * for error completions, whose opcode verbs leaves undefined, bounds the outstanding work to the
 * configured depths (a full queue returns false before the driver is called), and lets a
 * destroyed queue pair flush its outstanding work as the SPI promises.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FabricQueuePair implements UdQueuePair, CompletionOwner {
    static final long SEND_BIT = 1L << 63;

    final FabricPort port;
    final FabricDevice device;
    final MemorySegment qp;
    final int qpnValue;
    private final Qpn qpn;
    private final QKey qkey;
    private final boolean privileged;
    final FabricCompletionQueue sendCq;
    final FabricCompletionQueue recvCq;
    private final Arena arena = Arena.ofShared();
    /** The chains every post goes through, one driver call per list (a single post is a list of one). */
    private final SendChain sendChain;
    private final ReceiveChain recvChain;

    final Object sendLock = new Object();
    final Object recvLock = new Object();
    final long[] sendIds;
    /** Post order of each outstanding slot, so that made-up flushes keep it. */
    private final long[] sendSeq;
    private long sendPosted;
    private final boolean[] sendOutstanding;
    private final int[] sendFree;
    private int sendFreeCount;
    final long[] recvIds;
    private final long[] recvSeq;
    private long recvPosted;
    private final boolean[] recvOutstanding;
    private final int[] recvFree;
    private int recvFreeCount;
    private volatile QueuePairState state = QueuePairState.RTS;
    private volatile boolean closed;

    FabricQueuePair(FabricPort port, MemorySegment qp, FabricCompletionQueue sendCq, FabricCompletionQueue recvCq,
                    int sendDepth, int recvDepth, QKey qkey, boolean privileged) {
        this.port = port;
        this.device = port.device;
        this.qp = qp.reinterpret(Structs.IBV_QP.byteSize());
        this.qpnValue = this.qp.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_QP, "qp_num"));
        this.qpn = new Qpn(qpnValue);
        this.qkey = qkey;
        this.privileged = privileged;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        sendChain = new SendChain(arena, sendDepth);
        recvChain = new ReceiveChain(arena, recvDepth);
        sendIds = new long[sendDepth];
        sendSeq = new long[sendDepth];
        sendOutstanding = new boolean[sendDepth];
        sendFree = new int[sendDepth];
        for (int i = 0; i < sendDepth; i++) {
            sendFree[i] = sendDepth - 1 - i;
        }
        sendFreeCount = sendDepth;
        recvIds = new long[recvDepth];
        recvSeq = new long[recvDepth];
        recvOutstanding = new boolean[recvDepth];
        recvFree = new int[recvDepth];
        for (int i = 0; i < recvDepth; i++) {
            recvFree[i] = recvDepth - 1 - i;
        }
        recvFreeCount = recvDepth;
    }

    @Override
    public int queuePairNumber() {
        return qpnValue;
    }

    @Override
    public boolean completed(boolean send, int slot, long[] id) {
        synchronized (send ? sendLock : recvLock) {
            if (!release(send, slot)) {
                return false;
            }
            id[0] = (send ? sendIds : recvIds)[slot];
            return true;
        }
    }

    static boolean isSend(long rawWrId) {
        return (rawWrId & SEND_BIT) != 0;
    }

    static int slot(long rawWrId) {
        return (int) rawWrId;
    }

    @Override
    public Qpn qpn() {
        return qpn;
    }

    @Override
    public QKey qkey() {
        return qkey;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    /** Set by the async event thread on a QP fatal/error event. */
    void markError() {
        state = QueuePairState.ERROR;
    }

    /** One request through the receive chain: one driver call, as a list of one. */
    @Override
    public boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length) {
        FabricMemoryRegion mr = FabricMemoryRegion.of(region, device, "post receive");
        checkReceiveLength(length);
        long address = mr.bufferAddress(offset, length, "post receive");
        synchronized (recvLock) {
            checkOpen("post receive");
            if (recvFreeCount == 0) {
                return false;
            }
            recvChain.set(0, takeReceiveSlot(workRequestId), address, length, mr.localKey());
            return postChain(false, recvChain, 1, device.ops.postRecv, "post_recv") == 1;
        }
    }

    /** One request through the send chain: one driver call, as a list of one. */
    @Override
    public boolean postSend(long workRequestId, MemoryRegion region, long offset, int length,
                            AddressHandle destination, Qpn remoteQpn, QKey remoteQkey) {
        FabricMemoryRegion mr = FabricMemoryRegion.of(region, device, "post send");
        FabricAddressHandle ah = handle(destination, remoteQpn, remoteQkey);
        long address = mr.bufferAddress(offset, length, "post send");
        synchronized (sendLock) {
            checkOpen("post send");
            if (sendFreeCount == 0) {
                return false;
            }
            sendChain.set(0, SEND_BIT | takeSendSlot(workRequestId), address, length, mr.localKey(), ah.ah,
                    remoteQpn.value(), remoteQkey.value());
            return postChain(true, sendChain, 1, device.ops.postSend, "post_send") == 1;
        }
    }

    /**
     * The list through one call of the driver's {@code post_recv} on the preallocated chain: each
     * request is checked as {@link #postReceive(long, MemoryRegion, long, int)} checks it and takes
     * a slot; a refused request ends the list there (it throws when it is the first).
     */
    @Override
    public int postReceive(ReceiveWorkRequests requests) {
        synchronized (recvLock) {
            checkOpen("post receive");
            int n = Math.min(requests.count(), recvFreeCount);
            for (int k = 0; k < n; k++) {
                long address;
                int lkey;
                try {
                    FabricMemoryRegion mr = FabricMemoryRegion.of(requests.region(k), device, "post receive");
                    int length = requests.length(k);
                    checkReceiveLength(length);
                    address = mr.bufferAddress(requests.offset(k), length, "post receive");
                    lkey = mr.localKey();
                } catch (VerbsException e) {
                    if (k == 0) {
                        throw e;
                    }
                    n = k;
                    break;
                }
                recvChain.set(k, takeReceiveSlot(requests.workRequestId(k)), address, requests.length(k), lkey);
            }
            return postChain(false, recvChain, n, device.ops.postRecv, "post_recv");
        }
    }

    /**
     * The list through one call of the driver's {@code post_send} on the preallocated chain (one
     * doorbell): each request is checked as the single post checks it and takes a slot; a refused
     * request ends the list there (it throws when it is the first).
     */
    @Override
    public int postSend(SendWorkRequests requests) {
        synchronized (sendLock) {
            checkOpen("post send");
            int n = Math.min(requests.count(), sendFreeCount);
            for (int k = 0; k < n; k++) {
                long address;
                int lkey;
                FabricAddressHandle ah;
                try {
                    FabricMemoryRegion mr = FabricMemoryRegion.of(requests.region(k), device, "post send");
                    ah = handle(requests.destination(k), requests.remoteQpn(k), requests.remoteQkey(k));
                    address = mr.bufferAddress(requests.offset(k), requests.length(k), "post send");
                    lkey = mr.localKey();
                } catch (VerbsException e) {
                    if (k == 0) {
                        throw e;
                    }
                    n = k;
                    break;
                }
                sendChain.set(k, SEND_BIT | takeSendSlot(requests.workRequestId(k)), address, requests.length(k), lkey, ah.ah,
                        requests.remoteQpn(k).value(), requests.remoteQkey(k).value());
            }
            return postChain(true, sendChain, n, device.ops.postSend, "post_send");
        }
    }

    /**
     * One call of the driver's post function on the first {@code n} entries of the chain; the
     * slots of entries the driver did not take are freed. The caller holds the direction's lock.
     *
     * @return how many the driver took
     */
    private int postChain(boolean send, WorkRequestChain chain, int n, java.lang.invoke.MethodHandle post,
                          String what) {
        if (n == 0) {
            return 0;
        }
        chain.cutAfter(n - 1);
        int rc;
        try {
            rc = (int) post.invokeExact(qp, chain.first, chain.bad);
        } catch (Throwable t) {
            releaseChain(send, chain, 0, n);
            throw new VerbsException(what + " failed", 0, t);
        } finally {
            chain.joinAfter(n - 1);
        }
        if (rc == 0) {
            return n;
        }
        int posted = chain.badIndex();
        releaseChain(send, chain, posted, n);
        if (rc != Consts.ENOMEM && posted == 0) {
            throw new VerbsException(what + " failed: " + Native.describeErrno(rc), rc, null);
        }
        return posted;
    }

    /** Frees the slots of chain entries {@code from..to-1}, which the driver did not take. */
    private void releaseChain(boolean send, WorkRequestChain chain, int from, int to) {
        for (int k = from; k < to; k++) {
            release(send, slot(chain.rawId(k)));
        }
    }

    /** A free receive slot for {@code workRequestId}, in post order; the caller holds the lock and saw one free. */
    private int takeReceiveSlot(long workRequestId) {
        int slot = recvFree[--recvFreeCount];
        recvIds[slot] = workRequestId;
        recvSeq[slot] = ++recvPosted;
        recvOutstanding[slot] = true;
        return slot;
    }

    /** A free send slot for {@code workRequestId}, in post order; the caller holds the lock and saw one free. */
    private int takeSendSlot(long workRequestId) {
        int slot = sendFree[--sendFreeCount];
        sendIds[slot] = workRequestId;
        sendSeq[slot] = ++sendPosted;
        sendOutstanding[slot] = true;
        return slot;
    }

    private static void checkReceiveLength(int length) {
        if (length < GRH_AREA_LENGTH) {
            throw new VerbsException("post receive: buffer of " + length + " octets is shorter than the "
                    + GRH_AREA_LENGTH + "-octet GRH area");
        }
    }

    /** The checks of a send's destination, as the single post makes them. */
    private FabricAddressHandle handle(AddressHandle destination, Qpn remoteQpn, QKey remoteQkey) {
        if (!(destination instanceof FabricAddressHandle ah) || ah.device != device || ah.isClosed()) {
            throw new VerbsException("post send: the address handle is not an open handle of device " + device.name());
        }
        if (remoteQpn == null || remoteQkey == null) {
            throw new VerbsException("post send: remote QPN and Q_Key are required");
        }
        if (remoteQkey.isControlled() && !privileged) {
            // IBA 10.2.4: a non-privileged consumer cannot send a controlled Q_Key.
            throw new VerbsException("post send: Q_Key " + remoteQkey
                    + " is controlled (high bit set); only a privileged queue pair may send it");
        }
        return ah;
    }

    private void checkOpen(String what) {
        if (closed) {
            throw new VerbsException(what + ": queue pair " + qpn + " is closed");
        }
    }

    /**
     * Frees a slot whose work completed; the caller holds the direction's lock.
     *
     * @return false when the slot was not outstanding (already flushed)
     */
    boolean release(boolean send, int slot) {
        if (send) {
            if (slot < 0 || slot >= sendOutstanding.length || !sendOutstanding[slot]) {
                return false;
            }
            sendOutstanding[slot] = false;
            sendFree[sendFreeCount++] = slot;
        } else {
            if (slot < 0 || slot >= recvOutstanding.length || !recvOutstanding[slot]) {
                return false;
            }
            recvOutstanding[slot] = false;
            recvFree[recvFreeCount++] = slot;
        }
        return true;
    }

    @Override
    public void attachMulticast(Gid mgid, Lid mlid) {
        multicast("ibv_attach_mcast", mgid, mlid, true);
    }

    @Override
    public void detachMulticast(Gid mgid, Lid mlid) {
        multicast("ibv_detach_mcast", mgid, mlid, false);
    }

    private void multicast(String what, Gid mgid, Lid mlid, boolean attach) {
        if (mgid == null || !mgid.isMulticast() || mlid == null || !mlid.isMulticast()) {
            throw new VerbsException(what + ": needs a multicast GID (ff..) and a multicast LID (0xc000-0xfffe), got "
                    + mgid + " and " + mlid);
        }
        checkOpen(what);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment gid = a.allocate(Structs.IBV_GID);
            MemorySegment.copy(mgid.toBytes(), 0, gid, ValueLayout.JAVA_BYTE, 0, 16);
            int rc = attach
                    ? (int) device.ibv.attachMcast.invokeExact(qp, gid, (short) mlid.value())
                    : (int) device.ibv.detachMcast.invokeExact(qp, gid, (short) mlid.value());
            if (rc != 0) {
                throw new VerbsException(what + "(" + mgid + ", " + mlid + ") failed: " + Native.describeErrno(rc),
                        rc, null);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException(what + " failed", 0, t);
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        device.closeQueuePair(this);
    }

    /**
     * Destroys the QP; called by the device, once. Work still outstanding completes with a flush
     * error: drivers remove a destroyed QP's completions from its CQs (mlx5 cleans them), so the
     * flushes are made up here, each slot at most once against a racing poll.
     */
    void destroy() {
        synchronized (sendLock) {
            synchronized (recvLock) {
                if (closed) {
                    return;
                }
                closed = true;
                state = QueuePairState.ERROR;
            }
        }
        device.call("ibv_destroy_qp", () -> (int) device.ibv.destroyQp.invokeExact(qp));
        // Collected under the QP's locks, queued on the CQs outside them: a poll holds the CQ's
        // lock and then takes the QP's, so the opposite order here could deadlock.
        FabricCompletionQueue.destroyed(this, sendCq, flushes(true), recvCq, flushes(false));
        arena.close();
    }

    private long[] flushes(boolean send) {
        synchronized (send ? sendLock : recvLock) {
            long[] ids = send ? sendIds : recvIds;
            long[] seq = send ? sendSeq : recvSeq;
            Integer[] slots = new Integer[ids.length];
            int n = 0;
            for (int slot = 0; slot < ids.length; slot++) {
                if (send ? sendOutstanding[slot] : recvOutstanding[slot]) {
                    slots[n++] = slot;
                }
            }
            java.util.Arrays.sort(slots, 0, n, java.util.Comparator.comparingLong(i -> seq[i]));
            long[] out = new long[n];
            for (int i = 0; i < n; i++) {
                out[i] = ids[slots[i]];
                release(send, slots[i]);
            }
            return out;
        }
    }
}
