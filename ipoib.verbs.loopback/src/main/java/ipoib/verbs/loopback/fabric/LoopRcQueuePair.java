package ipoib.verbs.loopback.fabric;

import ipoib.api.PKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairEvent;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An RC queue pair of the loopback fabric, with the transport an HCA runs (IBA 9.7): messages cut
 * into PSN-numbered packets of the path MTU; the responder accepts only the expected PSN, ACKs
 * cumulatively, NAKs a gap (sequence error) or a missing buffer (RNR); the requester completes
 * sends in order when they are acknowledged and goes back to the first unacknowledged PSN on a NAK
 * or when the ACK timeout passes, until the retry count is spent.
 *
 * <p>Locks: the requester state under {@code sendLock}, the responder state under
 * {@code receiveLock}; neither is held while packets travel, so two queue pairs sending to each
 * other never wait for each other. Retransmissions after a NAK or a timeout run on the fabric's
 * scheduler, never nested in the delivery that caused them.
 *
 * <p>One class: requester and responder are the two halves of one transport and share
 * its state transitions, flushes and events; split, each would need the other's internals.
 */
final class LoopRcQueuePair implements RcQueuePair {
    static final int PSN_MASK = 0xFF_FFFF;
    /** How long a requester waits after an RNR NAK (the responder's minimum RNR timer, IBA table 45 code 1). */
    static final long RNR_WAIT_NANOS = 10_000;

    final LoopPort port;
    private final int qpn;
    private final Qpn qpnValue;
    final PKey pkey;
    private final int pkeyIndex;
    private final LoopCompletionQueue sendCq;
    private final LoopCompletionQueue recvCq;
    private final LoopSharedReceiveQueue receiveQueue;
    private final boolean ownReceiveQueue;
    private volatile QueuePairState state = QueuePairState.INIT;
    private final CopyOnWriteArrayList<Consumer<RcQueuePairEvent>> listeners = new CopyOnWriteArrayList<>();
    /** COMM_EST was raised (once: the first packet that arrives in RTR). */
    private boolean established;
    /** LAST_WQE_REACHED was raised (once: a queue pair of a shared receive queue entered ERROR). */
    private boolean lastWqeRaised;

    // Path (RTR).
    volatile int remoteQpn;
    volatile int remoteLid;
    volatile int serviceLevel;
    private volatile int mtu;

    // Requester (RTS), under sendLock.
    private final Object sendLock = new Object();
    private final long[] txWrId;
    private final MemorySegment[] txSegment;
    private final long[] txOffset;
    private final int[] txLength;
    private final int[] txFirstPsn;
    private final int[] txPackets;
    private int txHead;
    private int txSize;
    private int nextPsn;
    private int unackedPsn;
    private long timeoutNanos;
    private int retryCount;
    private int rnrRetry;
    private int retries;
    private int rnrRetries;
    /** Increases with every acknowledgement that moves the window: a timer armed before it is stale. */
    private long progress;
    private boolean timerArmed;

    // Responder, under receiveLock.
    private final Object receiveLock = new Object();
    private final LoopSharedReceiveQueue.Buffer current = new LoopSharedReceiveQueue.Buffer();
    private boolean inMessage;
    private int received;
    private int expectedPsn;
    /** A NAK went out for {@code expectedPsn}: later packets are dropped silently until it arrives (IBA 9.7.5.2.2). */
    private boolean nakOutstanding;
    /** Messages this responder completed (the AETH's MSN, IBA 9.7.5.1.1), 24 bits. */
    private int msn;

    LoopRcQueuePair(LoopPort port, int qpn, PKey pkey, int pkeyIndex, LoopCompletionQueue sendCq,
                    LoopCompletionQueue recvCq, LoopSharedReceiveQueue receiveQueue, boolean ownReceiveQueue,
                    int sendDepth) {
        this.port = port;
        this.qpn = qpn;
        this.qpnValue = Qpn.of(qpn);
        this.pkey = pkey;
        this.pkeyIndex = pkeyIndex;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.receiveQueue = receiveQueue;
        this.ownReceiveQueue = ownReceiveQueue;
        txWrId = new long[sendDepth];
        txSegment = new MemorySegment[sendDepth];
        txOffset = new long[sendDepth];
        txLength = new int[sendDepth];
        txFirstPsn = new int[sendDepth];
        txPackets = new int[sendDepth];
    }

    int qpnValue() {
        return qpn;
    }

    @Override
    public Qpn qpn() {
        return qpnValue;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    @Override
    public void readyToReceive(RcReceiveAttributes a) {
        synchronized (receiveLock) {
            if (state != QueuePairState.INIT) {
                throw new VerbsException("RC QP " + qpnValue + ": RTR needs INIT, the queue pair is " + state);
            }
            if (a.destination().global() || a.destination().destinationLid().isMulticast()) {
                throw new VerbsException("RC QP " + qpnValue + ": the loopback fabric connects unicast LIDs within the "
                        + "subnet; " + a.destination() + " is not one");
            }
            remoteQpn = a.remoteQpn().value();
            remoteLid = a.destination().destinationLid().value();
            serviceLevel = a.destination().serviceLevel();
            mtu = Math.min(a.pathMtu().bytes(), port.attributes().activeMtu().bytes());
            expectedPsn = a.receivePsn();
            state = QueuePairState.RTR;
        }
    }

    @Override
    public void readyToSend(RcSendAttributes a) {
        synchronized (sendLock) {
            if (state != QueuePairState.RTR) {
                throw new VerbsException("RC QP " + qpnValue + ": RTS needs RTR, the queue pair is " + state);
            }
            nextPsn = a.sendPsn();
            unackedPsn = a.sendPsn();
            timeoutNanos = a.timeoutNanos();
            retryCount = a.retryCount();
            rnrRetry = a.rnrRetry();
            state = QueuePairState.RTS;
        }
    }

    @Override
    public boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length) {
        if (!ownReceiveQueue) {
            throw new VerbsException("RC QP " + qpnValue + " takes its buffers from a shared receive queue: post there");
        }
        if (state == QueuePairState.ERROR) {
            recvCq.push(workRequestId, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_RECEIVE, 0, qpn,
                    0, 0, 0, pkeyIndex, false);
            return true;
        }
        return receiveQueue.postReceive(workRequestId, region, offset, length);
    }

    @Override
    public boolean postSend(long workRequestId, MemoryRegion region, long offset, int length) {
        if (!(region instanceof LoopMemoryRegion r)) {
            throw new VerbsException("postSend: memory region is not from the loopback provider");
        }
        r.check(port.device, offset, length, "postSend");
        int first;
        int packets;
        int packetSize;
        boolean arm;
        synchronized (sendLock) {
            if (state == QueuePairState.ERROR) {
                sendCq.push(workRequestId, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_SEND, 0,
                        qpn, 0, 0, 0, pkeyIndex, false);
                return true;
            }
            if (state != QueuePairState.RTS) {
                throw new VerbsException("postSend: RC QP " + qpnValue + " is " + state + ", not RTS");
            }
            if (txSize == txWrId.length) {
                return false;
            }
            int i = (txHead + txSize++) % txWrId.length;
            packetSize = mtu;
            packets = Math.max(1, (length + packetSize - 1) / packetSize);
            first = nextPsn;
            txWrId[i] = workRequestId;
            txSegment[i] = r.segment();
            txOffset[i] = offset;
            txLength[i] = length;
            txFirstPsn[i] = first;
            txPackets[i] = packets;
            nextPsn = (nextPsn + packets) & PSN_MASK;
            arm = !timerArmed;
            timerArmed = true;
        }
        port.device.fabric.rc.transmitMessage(this, first, packets, packetSize, r.segment(), offset, length);
        if (arm) {
            armTimer();
        }
        return true;
    }

    private void sendPacket(MemorySegment segment, long offset, int length, int firstPsn, int k, int packets) {
        sendPacket(segment, offset, length, firstPsn, k, packets, mtu);
    }

    /** Packet {@code k} of a message of {@code length} octets cut into {@code packets} packets of {@code packetSize}. */
    void sendPacket(MemorySegment segment, long offset, int length, int firstPsn, int k, int packets, int packetSize) {
        int chunk = Math.min(packetSize, length - k * packetSize);
        port.device.fabric.rc.transmit(this, (firstPsn + k) & PSN_MASK, k == 0, k == packets - 1, segment,
                offset + (long) k * packetSize, Math.max(chunk, 0));
    }

    // ---- responder ---------------------------------------------------------------------------------------

    /**
     * A packet arrived from the peer {@code sender}; returns the ACK/NAK to carry back
     * ({@link RcAck}), or {@link RcAck#NONE} when the queue pair does not receive.
     */
    long receive(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload, long offset,
                 int length, int slid) {
        synchronized (receiveLock) {
            if (state != QueuePairState.RTR && state != QueuePairState.RTS) {
                return RcAck.NONE;
            }
            if (state == QueuePairState.RTR && !established) {
                established = true; // IBA 11.6.3.1: a packet arrived in RTR; raised once
                raise(RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED);
            }
            int ahead = psnDifference(psn, expectedPsn);
            if (ahead < 0) {
                port.device.fabric.counters().rcDuplicate();
                return RcAck.of(RcAck.ACK, msn, expectedPsn - 1); // a retransmission of what we have: ACK again
            }
            if (ahead > 0 || first == inMessage) {
                // A gap, or a packet that does not continue the message in progress: one NAK per gap.
                if (nakOutstanding) {
                    port.device.fabric.counters().rcOutOfSequence();
                    return RcAck.SILENT;
                }
                nakOutstanding = true;
                return RcAck.of(RcAck.NAK_SEQUENCE, msn, expectedPsn);
            }
            nakOutstanding = false;
            if (first) {
                if (!receiveQueue.take(current)) {
                    nakOutstanding = true;
                    return RcAck.of(RcAck.RNR_NAK, msn, expectedPsn);
                }
                inMessage = true;
                received = 0;
            }
            if (received + length > current.length) {
                recvCq.push(current.wrId, CompletionStatus.LOCAL_LENGTH_ERROR, WorkCompletions.OPCODE_RECEIVE,
                        received + length, qpn, sender.qpnValue(), slid, 0, pkeyIndex, false);
                inMessage = false;
                current.region = null;
                failLater();
                return RcAck.of(RcAck.NAK_INVALID_REQUEST, msn, expectedPsn);
            }
            MemorySegment.copy(payload, offset, current.region.segment(), current.offset + received, length);
            received += length;
            expectedPsn = (expectedPsn + 1) & PSN_MASK;
            if (last) {
                inMessage = false;
                current.region = null;
                msn = (msn + 1) & PSN_MASK;
                if (!recvCq.push(current.wrId, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, received, qpn,
                        sender.qpnValue(), slid, 0, pkeyIndex, false)) {
                    port.device.fabric.counters().drop(DropReason.CQ_OVERRUN);
                }
            }
            return RcAck.of(RcAck.ACK, msn, psn);
        }
    }

    /**
     * A whole message that arrives at once, its {@code packets} packets from {@code psn} in order
     * ({@link RcDelivery#transmitMessage}): what {@link #receive} does with each, under one lock
     * with one copy, answered by one ACK of the last PSN (ACKs are cumulative). Only the plain
     * case is taken: the responder in RTR or RTS, expecting {@code psn}, no message in progress,
     * and a posted buffer large enough. Otherwise nothing changes and {@link RcAck#NONE} comes back:
     * the packets are then received one by one, as they would have been.
     */
    long receiveMessage(LoopRcQueuePair sender, int psn, int packets, MemorySegment payload, long offset, int length,
                        int slid) {
        synchronized (receiveLock) {
            if ((state != QueuePairState.RTR && state != QueuePairState.RTS) || psn != expectedPsn || inMessage
                    || !receiveQueue.takeAtLeast(current, length)) {
                return RcAck.NONE;
            }
            if (state == QueuePairState.RTR && !established) {
                established = true;
                raise(RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED);
            }
            nakOutstanding = false;
            MemorySegment.copy(payload, offset, current.region.segment(), current.offset, length);
            current.region = null;
            int last = (psn + packets - 1) & PSN_MASK;
            expectedPsn = (last + 1) & PSN_MASK;
            msn = (msn + 1) & PSN_MASK;
            if (!recvCq.push(current.wrId, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, length, qpn,
                    sender.qpnValue(), slid, 0, pkeyIndex, false)) {
                port.device.fabric.counters().drop(DropReason.CQ_OVERRUN);
            }
            return RcAck.of(RcAck.ACK, msn, last);
        }
    }

    // ---- requester ---------------------------------------------------------------------------------------

    /** The responder's answer arrived. */
    void acknowledged(long ack) {
        FabricCounters counters = port.device.fabric.counters();
        int resendFrom = -1;
        long delay = 0;
        synchronized (sendLock) {
            if (state != QueuePairState.RTS) {
                return;
            }
            int psn = RcAck.psn(ack);
            switch (RcAck.kind(ack)) {
                case RcAck.ACK -> completeThrough(psn);
                case RcAck.NAK_SEQUENCE -> {
                    counters.rcSequenceNak();
                    completeThrough((psn - 1) & PSN_MASK);
                    if (txSize > 0 && psnDifference(psn, unackedPsn) == 0) {
                        resendFrom = psn;
                    }
                }
                case RcAck.RNR_NAK -> {
                    counters.rcRnrNak();
                    completeThrough((psn - 1) & PSN_MASK);
                    if (rnrRetry != 7 && ++rnrRetries > rnrRetry) {
                        failHead(CompletionStatus.RNR_RETRY_EXCEEDED);
                        return;
                    }
                    resendFrom = psn;
                    delay = RNR_WAIT_NANOS;
                }
                default -> {
                    completeThrough((psn - 1) & PSN_MASK);
                    failHead(CompletionStatus.REMOTE_INVALID_REQUEST_ERROR);
                    return;
                }
            }
        }
        if (resendFrom >= 0) {
            int from = resendFrom;
            port.device.fabric.schedule(() -> resend(from), delay);
        }
    }

    /**
     * An acknowledgement of every PSN up to {@code psn}: the first unacknowledged PSN moves past it
     * (progress, which resets the retry counts), and every send whose last packet it covers
     * completes, in order.
     */
    private void completeThrough(int psn) {
        int advance = psnDifference(psn + 1, unackedPsn);
        if (txSize == 0 || advance <= 0 || psnDifference(psn, nextPsn) >= 0) {
            return; // nothing new acknowledged (a duplicate or stale ACK)
        }
        unackedPsn = (psn + 1) & PSN_MASK;
        retries = 0;
        rnrRetries = 0;
        progress++;
        while (txSize > 0) {
            int i = txHead;
            int last = (txFirstPsn[i] + txPackets[i] - 1) & PSN_MASK;
            if (psnDifference(psn, last) < 0) {
                break;
            }
            sendCq.push(txWrId[i], CompletionStatus.SUCCESS, WorkCompletions.OPCODE_SEND, txLength[i], qpn, 0, 0, 0,
                    pkeyIndex, false);
            txSegment[i] = null;
            txHead = (txHead + 1) % txWrId.length;
            txSize--;
        }
    }

    /** Go-back-N: sends again every outstanding packet from {@code fromPsn}. */
    private void resend(int fromPsn) {
        int n;
        long[] plan;
        synchronized (sendLock) {
            if (state != QueuePairState.RTS || txSize == 0 || psnDifference(fromPsn, unackedPsn) < 0) {
                return;
            }
            n = txSize;
            plan = new long[n]; // index of each outstanding send; retransmission is the slow path
            for (int k = 0; k < n; k++) {
                plan[k] = (txHead + k) % txWrId.length;
            }
        }
        FabricCounters counters = port.device.fabric.counters();
        for (long slot : plan) {
            int i = (int) slot;
            MemorySegment segment;
            long offset;
            int length;
            int first;
            int packets;
            synchronized (sendLock) {
                segment = txSegment[i];
                if (segment == null) {
                    continue; // completed meanwhile
                }
                offset = txOffset[i];
                length = txLength[i];
                first = txFirstPsn[i];
                packets = txPackets[i];
            }
            for (int k = 0; k < packets; k++) {
                if (psnDifference((first + k) & PSN_MASK, fromPsn) >= 0) {
                    counters.countRcRetransmission();
                    port.rcCounters().retransmission();
                    sendPacket(segment, offset, length, first, k, packets);
                }
            }
        }
    }

    private void armTimer() {
        long armedAt;
        synchronized (sendLock) {
            armedAt = progress;
        }
        port.device.fabric.schedule(() -> timerFired(armedAt), timeoutNanos);
    }

    /** The ACK timeout: no progress since the timer was armed means the packets or their ACKs were lost. */
    private void timerFired(long armedAt) {
        int from;
        synchronized (sendLock) {
            if (state != QueuePairState.RTS || txSize == 0) {
                timerArmed = false;
                return;
            }
            if (progress != armedAt) {
                from = -1; // the window moved: wait one more timeout for the rest
            } else if (++retries > retryCount) {
                failHead(CompletionStatus.RETRY_EXCEEDED);
                timerArmed = false;
                return;
            } else {
                from = unackedPsn;
            }
        }
        if (from >= 0) {
            port.device.fabric.counters().rcTimeout();
            port.rcCounters().timeout();
            resend(from);
        }
        armTimer();
    }

    /** The oldest send fails with {@code status}; the queue pair goes to ERROR and the rest is flushed. */
    private void failHead(CompletionStatus status) {
        if (txSize > 0) {
            int i = txHead;
            sendCq.push(txWrId[i], status, WorkCompletions.OPCODE_SEND, 0, qpn, 0, 0, 0, pkeyIndex, false);
            txSegment[i] = null;
            txHead = (txHead + 1) % txWrId.length;
            txSize--;
        }
        state = QueuePairState.ERROR;
        flushSends();
        port.device.fabric.schedule(this::flushReceives, 0);
    }

    private void failLater() {
        port.device.fabric.schedule(this::toError, 0);
    }

    @Override
    public void toError() {
        synchronized (sendLock) {
            state = QueuePairState.ERROR;
            flushSends();
        }
        flushReceives();
    }

    private void flushSends() {
        while (txSize > 0) {
            int i = txHead;
            sendCq.push(txWrId[i], CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_SEND, 0, qpn, 0, 0,
                    0, pkeyIndex, false);
            txSegment[i] = null;
            txHead = (txHead + 1) % txWrId.length;
            txSize--;
        }
    }

    private void flushReceives() {
        synchronized (receiveLock) {
            if (!ownReceiveQueue && !lastWqeRaised) {
                // In ERROR the queue pair takes no more buffers from the shared queue (IBA 10.3.1).
                lastWqeRaised = true;
                raise(RcQueuePairEvent.Type.LAST_WQE_REACHED);
            }
            if (inMessage) {
                recvCq.push(current.wrId, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_RECEIVE, 0,
                        qpn, 0, 0, 0, pkeyIndex, false);
                inMessage = false;
            }
            if (ownReceiveQueue) {
                for (long id : receiveQueue.drain()) {
                    recvCq.push(id, CompletionStatus.WORK_REQUEST_FLUSH_ERROR, WorkCompletions.OPCODE_RECEIVE, 0, qpn, 0,
                            0, 0, pkeyIndex, false);
                }
            }
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

    /** Hands an event to the listeners on the fabric's event thread (never on the data path's). */
    private void raise(RcQueuePairEvent.Type type) {
        if (listeners.isEmpty()) {
            return;
        }
        RcQueuePairEvent event = new RcQueuePairEvent(this, type);
        port.device.fabric.schedule(() -> {
            for (Consumer<RcQueuePairEvent> l : listeners) {
                try {
                    l.accept(event);
                } catch (RuntimeException e) {
                    java.util.logging.Logger.getLogger(LoopRcQueuePair.class.getName()).log(
                            java.util.logging.Level.WARNING, "RC event listener failed on " + event, e);
                }
            }
        }, 0);
    }

    @Override
    public void close() {
        toError();
        port.removeRcQueuePair(this);
    }

    /** {@code a - b} in 24-bit PSN space, as a signed distance (IBA 9.7.1.1: half the space each way). */
    static int psnDifference(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    @Override
    public String toString() {
        return "RC QP " + qpnValue + " on " + port + " (" + state + ")";
    }
}
