package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.ReceiveWorkRequests;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.codec.iba.Bth;
import ipoib.codec.iba.Deth;
import ipoib.codec.iba.Grh;
import ipoib.codec.iba.Icrc;
import ipoib.runtime.SpinLock;
import ipoib.runtime.ThreadCounters;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A UD queue pair of the loopback fabric. Sends are delivered synchronously on the sender's
 * thread into the receiver's posted buffer; each queue pair's receive queue has its own lock,
 * so traffic to unrelated queue pairs never contends.
 *
 * <p>One class: the receive queue (its lock, single and list posts, single and run
 * deliveries, the flush) and the send queue (single and list posts, its lock, the port counts it
 * keeps under that lock) share the queue pair's state and completion queues; split, each half
 * would reach into the other's fields.
 */
final class LoopQueuePair implements UdQueuePair {
    final LoopPort port;
    private final int qpn;
    private final Qpn qpnValue;
    private final QKey qkey;
    final int qkeyBits;
    final PKey pkey;
    final int pkeyIndex;
    private final LoopCompletionQueue sendCq;
    private final LoopCompletionQueue recvCq;
    private final Set<MulticastGroup> attachedGroups = ConcurrentHashMap.newKeySet();

    /**
     * The receive queue's lock word, head and size, together in the middle of 192 octets of
     * their own: a sender's delivery and the owner's re-post both take the lock and move the
     * indices, so the one line that must cross between their cores carries all three, and none
     * of the fields senders only read (state, keys, port) shares it.
     */
    private final int[] rx = new int[48];
    private static final java.lang.invoke.VarHandle INTS =
            java.lang.invoke.MethodHandles.arrayElementVarHandle(int[].class);
    private static final int LOCK = 16;
    private static final int HEAD = 17;
    private static final int SIZE = 18;
    // Receive queue: a ring of posted buffers, guarded by the lock in rx.
    private final long[] rxWrId;
    private final LoopMemoryRegion[] rxRegion;
    private final long[] rxOffset;
    private final int[] rxLength;
    private volatile QueuePairState state = QueuePairState.RTS;
    /**
     * Serialises the sends, as an HCA driver's send queue lock does (mlx5's {@code sq.lock}):
     * held from the claim of the send completion to its wake, so that the send completion queue
     * of this queue pair alone claims without a CAS (see {@link LoopCompletionQueue#bindProducer}).
     */
    private final SpinLock sendLock = new SpinLock();
    /** The multicast packet being forwarded, reused under the send lock (forwarding allocates nothing). */
    final SwitchForwarding.Packet multicastPacket = new SwitchForwarding.Packet();
    /**
     * The port's packet counters of the thread that holds the send lock, kept here so that a
     * frame does not look them up (a thread-local look-up per frame cost 5 % of the sender's
     * time); replaced when another thread takes the lock.
     */
    private ThreadCounters.Cells sendCells;
    /** The receive queue's lock, as the receive completion queue's producer lock. */
    final ProducerLock receiveLock = new ProducerLock() {
        @Override
        public void lock() {
            lockRx();
        }

        @Override
        public void unlock() {
            unlockRx();
        }
    };
    /** The send lock, as the send completion queue's producer lock. */
    final ProducerLock sendCompletionLock = new ProducerLock() {
        @Override
        public void lock() {
            sendLock.lock();
        }

        @Override
        public void unlock() {
            sendLock.unlock();
        }
    };

    LoopQueuePair(LoopPort port, int qpn, UdQueuePairConfig config, PKey pkey, LoopCompletionQueue sendCq,
                  LoopCompletionQueue recvCq) {
        this.port = port;
        this.qpn = qpn;
        this.qpnValue = Qpn.of(qpn);
        this.qkey = config.qkey();
        this.qkeyBits = config.qkey().value();
        this.pkey = pkey;
        this.pkeyIndex = config.pkeyIndex();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        int depth = config.receiveQueueDepth();
        rxWrId = new long[depth];
        rxRegion = new LoopMemoryRegion[depth];
        rxOffset = new long[depth];
        rxLength = new int[depth];
    }

    /** Takes the receive queue's lock (a {@link SpinLock} word beside the head and size). */
    private void lockRx() {
        SpinLock.lock(rx, LOCK);
    }

    private void unlockRx() {
        SpinLock.unlock(rx, LOCK);
    }

    int qpnValue() {
        return qpn;
    }

    @Override
    public Qpn qpn() {
        return qpnValue;
    }

    @Override
    public QKey qkey() {
        return qkey;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    private LoopMemoryRegion region(MemoryRegion region, long offset, int length, String operation) {
        if (!(region instanceof LoopMemoryRegion r)) {
            throw new VerbsException(operation + ": memory region is not from the loopback provider");
        }
        r.check(port.device, offset, length, operation);
        return r;
    }

    @Override
    public boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length) {
        LoopMemoryRegion r = checkReceive(region, offset, length);
        lockRx();
        try {
            if (state == QueuePairState.ERROR || state == QueuePairState.RESET) {
                recvCq.push(workRequestId, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_RECEIVE,
                        0, qpn, 0, 0, 0, pkeyIndex, false);
                return true;
            }
            if (rx[SIZE] == rxWrId.length) {
                return false;
            }
            int i = (rx[HEAD] + rx[SIZE]) % rxWrId.length;
            rxWrId[i] = workRequestId;
            rxRegion[i] = r;
            rxOffset[i] = offset;
            rxLength[i] = length;
            rx[SIZE]++;
            return true;
        } finally {
            unlockRx();
        }
    }

    /** One pass of checks, then the whole list under the receive queue's lock once. */
    @Override
    public int postReceive(ReceiveWorkRequests requests) {
        int n = requests.count();
        for (int k = 0; k < n; k++) {
            try {
                checkReceive(requests.region(k), requests.offset(k), requests.length(k));
            } catch (VerbsException e) {
                if (k == 0) {
                    throw e;
                }
                n = k; // the requests before the refused one are posted, as ibv_post_recv's bad_wr
                break;
            }
        }
        lockRx();
        try {
            for (int k = 0; k < n; k++) {
                long id = requests.workRequestId(k);
                if (state == QueuePairState.ERROR || state == QueuePairState.RESET) {
                    recvCq.push(id, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_RECEIVE, 0, qpn,
                            0, 0, 0, pkeyIndex, false);
                    continue;
                }
                if (rx[SIZE] == rxWrId.length) {
                    return k;
                }
                int i = rx[HEAD] + rx[SIZE];
                if (i >= rxWrId.length) {
                    i -= rxWrId.length;
                }
                rxWrId[i] = id;
                rxRegion[i] = (LoopMemoryRegion) requests.region(k);
                rxOffset[i] = requests.offset(k);
                rxLength[i] = requests.length(k);
                rx[SIZE]++;
            }
        } finally {
            unlockRx();
        }
        return n;
    }

    private LoopMemoryRegion checkReceive(MemoryRegion region, long offset, int length) {
        LoopMemoryRegion r = region(region, offset, length, "postReceive");
        if (length < GRH_AREA_LENGTH) {
            throw new VerbsException("postReceive: buffer of " + length + " octets cannot hold the "
                    + GRH_AREA_LENGTH + "-octet GRH area");
        }
        return r;
    }

    @Override
    public boolean postSend(long workRequestId, MemoryRegion region, long offset, int length,
                            AddressHandle destination, Qpn remoteQpn, QKey remoteQkey) {
        LoopMemoryRegion r = checkSend(region, offset, length, destination, remoteQpn, remoteQkey);
        LoopAddressHandle ah = (LoopAddressHandle) destination;
        sendLock.lock();
        try {
            if (!sendCq.hasRoom()) {
                return false;
            }
            if (state != QueuePairState.RTS) {
                sendCq.push(workRequestId, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_SEND, 0,
                        qpn, 0, 0, 0, pkeyIndex, false);
                return true;
            }
            if (length > port.activeMtu().bytes()) {
                port.device.fabric.counters().lengthError();
                sendCq.push(workRequestId, CompletionStatus.LOCAL_LENGTH_ERROR, WorkCompletions.OPCODE_SEND, 0, qpn, 0,
                        0, 0, pkeyIndex, false);
                return true;
            }
            port.device.fabric.ud.transmit(this, ah, remoteQpn.value(), qkeyOnWire(remoteQkey), r.segment(), offset,
                    length);
            sendCq.push(workRequestId, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_SEND, length, qpn, 0, 0, 0,
                    pkeyIndex, false);
            return true;
        } finally {
            sendLock.unlock();
        }
    }

    /** Runs a delivery of this queue pair's outside a post (a held-back packet) as its posts run. */
    void underSendLock(Runnable delivery) {
        sendLock.lock();
        try {
            delivery.run();
        } finally {
            sendLock.unlock();
        }
    }

    /** Counts packets this queue pair sent into its port's counters; under the send lock. */
    void countSent(int packets) {
        cells().add(LoopPort.SENT, packets);
    }

    /** Counts packets of this queue pair's delivered; under the send lock. */
    void countDelivered(int packets) {
        if (packets > 0) {
            cells().add(LoopPort.DELIVERED, packets);
        }
    }

    private ThreadCounters.Cells cells() {
        ThreadCounters.Cells c = sendCells;
        if (c == null || !c.belongsTo(Thread.currentThread())) {
            c = port.packets.cells();
            sendCells = c;
        }
        return c;
    }

    /** IBA 10.2.4.2: a work request Q_Key with the high bit set means "use the QP's own Q_Key". */
    private int qkeyOnWire(QKey remoteQkey) {
        return remoteQkey.value() < 0 ? qkeyBits : remoteQkey.value();
    }

    private LoopMemoryRegion checkSend(MemoryRegion region, long offset, int length, AddressHandle destination,
                                       Qpn remoteQpn, QKey remoteQkey) {
        LoopMemoryRegion r = region(region, offset, length, "postSend");
        if (!(destination instanceof LoopAddressHandle ah) || ah.isClosed()) {
            throw new VerbsException("postSend: address handle is closed or not from the loopback provider");
        }
        if (remoteQpn == null || remoteQkey == null) {
            throw new VerbsException("postSend: remote QPN and Q_Key are required");
        }
        return r;
    }

    /**
     * A list in one go: the send completion queue is claimed once for the whole list (one CAS on
     * its tail, one wake), and each run of consecutive datagrams to the same queue pair is
     * delivered as one ({@link UdDelivery#transmit(LoopQueuePair, LoopAddressHandle, int, int,
     * SendWorkRequests, int, int)}: the receive queue's lock taken once, its completion queue
     * claimed once). Completions, order, drops and faults are those of posting the requests one
     * by one; the send queue takes as many as its completion queue has room for.
     */
    @Override
    public int postSend(SendWorkRequests requests) {
        int n = requests.count();
        for (int k = 0; k < n; k++) {
            try {
                checkSend(requests.region(k), requests.offset(k), requests.length(k), requests.destination(k),
                        requests.remoteQpn(k), requests.remoteQkey(k));
            } catch (VerbsException e) {
                if (k == 0) {
                    throw e;
                }
                n = k; // the requests before the refused one are posted, as ibv_post_send's bad_wr
                break;
            }
        }
        sendLock.lock();
        try {
            return postLocked(requests, n);
        } finally {
            sendLock.unlock();
        }
    }

    private int postLocked(SendWorkRequests requests, int n) {
        int claimed = sendCq.room(n);
        long first = -1;
        while (claimed > 0 && (first = sendCq.claim(claimed)) < 0) {
            claimed = sendCq.room(n);
        }
        if (claimed == 0) {
            return 0;
        }
        Fabric fabric = port.device.fabric;
        int mtu = port.activeMtu().bytes();
        int k = 0;
        try {
            while (k < claimed) {
                int length = requests.length(k);
                if (state != QueuePairState.RTS) {
                    sendCq.put(first + k, requests.workRequestId(k), CompletionStatus.WORK_REQUEST_FLUSH_ERROR,
                            WorkCompletions.OPCODE_SEND, 0, qpn, 0, 0, 0, pkeyIndex, false);
                    k++;
                    continue;
                }
                if (length > mtu) {
                    fabric.counters().lengthError();
                    sendCq.put(first + k, requests.workRequestId(k), CompletionStatus.LOCAL_LENGTH_ERROR,
                            WorkCompletions.OPCODE_SEND, 0, qpn, 0, 0, 0, pkeyIndex, false);
                    k++;
                    continue;
                }
                AddressHandle destination = requests.destination(k);
                Qpn remoteQpn = requests.remoteQpn(k);
                int qkey = qkeyOnWire(requests.remoteQkey(k));
                int end = k + 1;
                while (end < claimed && requests.destination(end) == destination
                        && requests.remoteQpn(end).value() == remoteQpn.value()
                        && qkeyOnWire(requests.remoteQkey(end)) == qkey && requests.length(end) <= mtu) {
                    end++;
                }
                fabric.ud.transmit(this, (LoopAddressHandle) destination, remoteQpn.value(), qkey, requests, k, end);
                for (; k < end; k++) {
                    sendCq.put(first + k, requests.workRequestId(k), CompletionStatus.SUCCESS,
                            WorkCompletions.OPCODE_SEND, requests.length(k), qpn, 0, 0, 0, pkeyIndex, false);
                }
            }
        } finally {
            // Claimed slots are always published (a failure half-way flushes the rest), or the
            // queue would stop at the first unpublished one.
            for (; k < claimed; k++) {
                sendCq.put(first + k, requests.workRequestId(k), CompletionStatus.WORK_REQUEST_FLUSH_ERROR,
                        WorkCompletions.OPCODE_SEND, 0, qpn, 0, 0, 0, pkeyIndex, false);
            }
            sendCq.wake();
        }
        return claimed;
    }

    /**
     * Places a datagram into the next posted receive buffer: the GRH area first (a GRH when
     * {@code grh} is true), then the payload.
     *
     * @return the drop reason, or null when delivered
     */
    DropReason receive(LoopQueuePair sender, int slid, int sl, boolean grh, int trafficClass, int flowLabel,
                       int hopLimit, long dgidPrefix, long dgidInterfaceId, MemorySegment payload, long offset,
                       int length) {
        lockRx();
        try {
            if (state != QueuePairState.RTS && state != QueuePairState.RTR) {
                return DropReason.QP_NOT_READY;
            }
            if (rx[SIZE] == 0) {
                return DropReason.NO_RECEIVE_BUFFER;
            }
            int i = rx[HEAD];
            boolean fits = place(i, sender, grh, trafficClass, flowLabel, hopLimit, dgidPrefix, dgidInterfaceId,
                    payload, offset, length);
            // A buffer too small for the datagram completes with a length error, as on hardware.
            boolean completed = recvCq.push(rxWrId[i], fits ? CompletionStatus.SUCCESS : CompletionStatus.LOCAL_LENGTH_ERROR,
                    WorkCompletions.OPCODE_RECEIVE, fits ? length + GRH_AREA_LENGTH : 0, qpn, sender.qpn, slid, sl,
                    pkeyIndex, grh);
            if (!completed) {
                // The completion queue is full: the buffer stays posted, the datagram is lost.
                return DropReason.CQ_OVERRUN;
            }
            rxRegion[i] = null;
            rx[HEAD] = (rx[HEAD] + 1) % rxWrId.length;
            rx[SIZE]--;
            return null;
        } finally {
            unlockRx();
        }
    }

    /**
     * Writes a datagram into posted receive buffer {@code i} (the GRH area, then the payload)
     * when it fits; the caller holds the receive lock.
     *
     * @return whether it fit (a buffer too small completes with a length error)
     */
    private boolean place(int i, LoopQueuePair sender, boolean grh, int trafficClass, int flowLabel, int hopLimit,
                          long dgidPrefix, long dgidInterfaceId, MemorySegment payload, long offset, int length) {
        if (length + GRH_AREA_LENGTH > rxLength[i]) {
            return false;
        }
        MemorySegment buffer = rxRegion[i].segment();
        long at = rxOffset[i];
        if (grh) {
            Gid sgid = sender.port.gid(0);
            // PayLen counts what follows the GRH on the wire: BTH, DETH, the padded payload, ICRC.
            Grh.write(buffer, at, trafficClass, flowLabel, Bth.LENGTH + Deth.LENGTH + ((length + 3) & ~3) + Icrc.LENGTH,
                    hopLimit, sgid.prefix(), sgid.interfaceId(), dgidPrefix, dgidInterfaceId);
        }
        MemorySegment.copy(payload, offset, buffer, at + GRH_AREA_LENGTH, length);
        return true;
    }

    /**
     * Places a run of datagrams from one sender into the next posted receive buffers, in order:
     * the receive queue's lock once, the completion queue claimed once for the run and woken
     * once. Each datagram fares as with {@link #receive(LoopQueuePair, int, int, boolean, int, int,
     * int, long, long, MemorySegment, long, int) receive}, except that those for which no buffer
     * is posted are left to the caller (held or dropped by {@link UdDelivery}): when the completion
     * queue fills up the rest are dropped as {@link DropReason#CQ_OVERRUN} (their buffers stay
     * posted), when the queue pair does not receive all as {@link DropReason#QP_NOT_READY}. The
     * datagrams completed (delivered, or completed with a length error) are counted as the
     * sender's deliveries.
     *
     * @return how many of the run, from {@code from} on, were completed or dropped; those after
     *         them found no posted buffer
     */
    int receive(LoopQueuePair sender, int slid, int sl, boolean grh, int trafficClass, int flowLabel, int hopLimit,
                long dgidPrefix, long dgidInterfaceId, SendWorkRequests list, int from, int to) {
        int n = to - from;
        FabricCounters counters = port.device.fabric.counters();
        int completed;
        int buffers;
        lockRx();
        try {
            if (state != QueuePairState.RTS && state != QueuePairState.RTR) {
                counters.drop(DropReason.QP_NOT_READY, n);
                return n;
            }
            buffers = Math.min(n, rx[SIZE]);
            completed = recvCq.room(buffers);
            long first = -1;
            while (completed > 0 && (first = recvCq.claim(completed)) < 0) {
                completed = recvCq.room(buffers);
            }
            for (int k = 0; k < completed; k++) {
                int i = rx[HEAD];
                int length = list.length(from + k);
                boolean fits = place(i, sender, grh, trafficClass, flowLabel, hopLimit, dgidPrefix, dgidInterfaceId,
                        ((LoopMemoryRegion) list.region(from + k)).segment(), list.offset(from + k), length);
                recvCq.put(first + k, rxWrId[i], fits ? CompletionStatus.SUCCESS : CompletionStatus.LOCAL_LENGTH_ERROR,
                        WorkCompletions.OPCODE_RECEIVE, fits ? length + GRH_AREA_LENGTH : 0, qpn, sender.qpn, slid, sl,
                        pkeyIndex, grh);
                rxRegion[i] = null;
                rx[HEAD] = i + 1 == rxWrId.length ? 0 : i + 1;
                rx[SIZE]--;
            }
            if (completed > 0) {
                recvCq.wake(); // under the lock: it is the queue's producer lock (bindProducer)
            }
        } finally {
            unlockRx();
        }
        sender.countDelivered(completed);
        if (completed < buffers) {
            counters.drop(DropReason.CQ_OVERRUN, n - completed);
            return n;
        }
        return buffers;
    }

    /** Whether a receive buffer is posted (read without the lock: a hint for a held sender). */
    boolean hasPostedReceive() {
        return (int) INTS.getOpaque(rx, SIZE) > 0;
    }

    /** Whether the queue pair receives (RTR or RTS): a held sender stops waiting when not. */
    boolean receives() {
        QueuePairState s = state;
        return s == QueuePairState.RTS || s == QueuePairState.RTR;
    }

    @Override
    public void attachMulticast(Gid mgid, Lid mlid) {
        checkUsable("attachMulticast");
        SubnetManager sm = port.device.fabric.subnetManager();
        MulticastGroup group = sm.standsDown() ? sm.attachedGroup(new Mgid(mgid), mlid.value())
                : sm.groupByMlid(mlid.value());
        if (group == null || !group.mgid().gid().equals(mgid)) {
            throw new VerbsException("attachMulticast: no group " + mgid + " with MLID " + mlid
                    + " (join it through the subnet administrator first)");
        }
        group.attach(this);
        attachedGroups.add(group);
    }

    @Override
    public void detachMulticast(Gid mgid, Lid mlid) {
        MulticastGroup group = port.device.fabric.subnetManager().groupByMlid(mlid.value());
        if (group != null) {
            group.detach(this);
            attachedGroups.remove(group);
        }
    }

    private void checkUsable(String operation) {
        if (state == QueuePairState.ERROR || state == QueuePairState.RESET) {
            throw new VerbsException(operation + ": queue pair " + qpnValue + " is in state " + state);
        }
    }

    /** Moves to ERROR: posted receives complete with a flush error (a port reset, a closed provider). */
    void fail() {
        lockRx();
        try {
            if (state == QueuePairState.ERROR || state == QueuePairState.RESET) {
                return;
            }
            state = QueuePairState.ERROR;
            flushReceives();
        } finally {
            unlockRx();
        }
        for (MulticastGroup g : attachedGroups) {
            g.detach(this);
        }
        attachedGroups.clear();
    }

    private void flushReceives() {
        while (rx[SIZE] > 0) {
            int i = rx[HEAD];
            rx[HEAD] = (rx[HEAD] + 1) % rxWrId.length;
            rx[SIZE]--;
            rxRegion[i] = null;
            recvCq.push(rxWrId[i], CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_RECEIVE, 0, qpn,
                    0, 0, 0, pkeyIndex, false);
        }
    }

    @Override
    public void close() {
        fail();
        lockRx();
        try {
            state = QueuePairState.RESET;
        } finally {
            unlockRx();
        }
        port.removeQueuePair(this);
    }

    @Override
    public String toString() {
        return "QP " + qpnValue + " on " + port;
    }
}
