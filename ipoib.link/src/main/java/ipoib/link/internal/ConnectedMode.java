package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.LinkAddress;
import ipoib.api.Lid;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.Rate;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.cm.CmAgent;
import ipoib.cm.CmConnection;
import ipoib.cm.CmDecision;
import ipoib.cm.CmEndpoint;
import ipoib.cm.CmException;
import ipoib.cm.ConnectRequest;
import ipoib.codec.DecodeException;
import ipoib.codec.cm.CmPath;
import ipoib.codec.cm.CmRej;
import ipoib.codec.cm.CmRep;
import ipoib.codec.cm.CmReq;
import ipoib.codec.cm.IpoibCm;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.runtime.Clock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connected mode of one UP period of an interface (RFC 4755; Linux drivers/infiniband/ulp/ipoib/
 * ipoib_cm.c is the reference): the passive side listens on service ID
 * {@code 0x1000000000000000 | UD QPN} (ipoib_cm.c:61, {@code IPOIB_CM_IETF_ID}) with one shared
 * receive queue for all its connections; the active side connects, per path entry, to a peer
 * whose link-layer address carries the RC flag, and sends its unicast frames there. Multicast,
 * broadcast and peers without the flag stay on UD ({@link LinkResources}). A REJ or a failed
 * connection sends that peer's frames over UD and tries again after {@link #RETRY_NANOS};
 * connections without traffic for {@link #IDLE_NANOS} are torn down.
 *
 * <p>Threads: {@link #send} runs on the senders' threads and allocates nothing once a connection
 * is up; the CM callbacks run on the port's CM thread ({@link CmPortAgent}); completions of every
 * connection go to one completion queue drained by {@code ipoib-cm-rx-<name>}; the idle check runs
 * on the link's control loop. Nothing here waits on another of these threads while holding this
 * object's lock (a CM callback that waited on the link's control thread while the control thread
 * waited on the CM thread would hang both).
 *
 * <p>Size: the data path, the CM callbacks and the teardown of one set of verbs resources are
 * one concept here (the connections share the queue, the buffers and the lock); ~480 lines.
 */
final class ConnectedMode {
    /** IPOIB_CM_MTU (drivers/infiniband/ulp/ipoib/ipoib.h): 64 KiB − 16, the largest IP packet. */
    static final int MTU = 0x10000 - 0x10;
    /** IPOIB_CM_BUF_SIZE: the MTU plus the 4-octet header, what REQ and REP announce as the receive MTU. */
    static final int RECEIVE_MTU = MTU + EncapsulationHeader.LENGTH;
    /**
     * A connection without traffic this long is torn down: 256 s, Linux's IPOIB_CM_RX_UPDATE_TIME
     * (ipoib_cm.c:63). Linux's passive side calls a connection stale after IPOIB_CM_RX_TIMEOUT (2 × 256 s,
     * ipoib_cm.c:64), checked every IPOIB_CM_RX_DELAY (3 × 256 s); its active side goes with the neighbour.
     */
    static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(256);
    /** After a REJ or a failure, the peer's frames go over UD this long before the next attempt. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int BUFFER = 0x10000;
    private static final int RECEIVE_BUFFERS = 64;
    private static final int SEND_BUFFERS = 64;
    private static final int SEND_DEPTH = 32;
    private static final long SEND_TAG = 1L << 40;
    /** RC ACK timeout code 14 (≈ 67 ms) and 7 retries, as Linux's ipoib_cm.c sets up the tx QP. */
    private static final int ACK_TIMEOUT = 14;
    private static final int RETRIES = 7;

    private final LinkEngine engine;
    private final LinkStatistics stats;
    private final Clock clock;
    private final Port port;
    private final CmPortAgent portAgent;
    private final int pkeyIndex;
    private final int pkeyValue;
    private final int udQpn;
    private final Gid gid;
    private final long serviceId;
    private final CompletionQueue cq;
    private final SharedReceiveQueue srq;
    private final MemoryRegion region;
    private final MemorySegment buffers;
    private final MemorySegment[] receiveViews = new MemorySegment[RECEIVE_BUFFERS];
    private final Frame frame = new Frame();
    private final Thread poller;
    private final SplittableRandom psns = new SplittableRandom();

    // Guarded by this.
    private final int[] freeSend = new int[SEND_BUFFERS];
    private int freeTop;
    private final List<CmLinkConnection> connections = new ArrayList<>();
    /** What the receive thread scans by local QPN (a copy made on every change: no lock, no allocation per packet). */
    private volatile CmLinkConnection[] byQpn = new CmLinkConnection[0];
    private volatile boolean running = true;

    final LongAdder rejected = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder reaped = new LongAdder();
    final LongAdder established = new LongAdder();
    final LongAdder sentOverUd = new LongAdder();
    /** ICMP "fragmentation needed" / "packet too big" handed to the local stack. */
    final LongAdder tooBigNotices = new LongAdder();

    /**
     * Creates the shared receive queue, the completion queue and the buffers, and listens.
     *
     * @throws VerbsException when the provider offers no RC (the message says why); nothing stays allocated
     */
    ConnectedMode(LinkEngine engine, Port port, CmPortAgent portAgent, int pkeyIndex, int pkeyValue, Qpn udQpn, Gid gid) {
        this.engine = engine;
        this.stats = engine.stats;
        this.clock = engine.control().clock();
        this.port = port;
        this.portAgent = portAgent;
        this.pkeyIndex = pkeyIndex;
        this.pkeyValue = pkeyValue;
        this.udQpn = udQpn.value();
        this.gid = gid;
        this.serviceId = IpoibCm.serviceId(this.udQpn);
        CompletionQueue createdCq = null;
        SharedReceiveQueue createdSrq = null;
        MemoryRegion createdRegion = null;
        try {
            createdCq = port.createCompletionQueue(RECEIVE_BUFFERS + SEND_BUFFERS * 2);
            createdSrq = port.createSharedReceiveQueue(RECEIVE_BUFFERS);
            this.buffers = Arena.ofAuto().allocate((long) BUFFER * (RECEIVE_BUFFERS + SEND_BUFFERS), 64);
            createdRegion = port.device().registerMemory(buffers);
        } catch (RuntimeException e) {
            closeQuietly(createdSrq, createdCq, createdRegion);
            throw e;
        }
        this.cq = createdCq;
        this.srq = createdSrq;
        this.region = createdRegion;
        for (int i = 0; i < RECEIVE_BUFFERS; i++) {
            receiveViews[i] = buffers.asSlice(receiveOffset(i), BUFFER).asReadOnly();
            srq.postReceive(i, region, receiveOffset(i), BUFFER);
        }
        for (int i = 0; i < SEND_BUFFERS; i++) {
            freeSend[i] = i;
        }
        freeTop = SEND_BUFFERS;
        poller = new Thread(this::pollLoop, "ipoib-cm-rx-" + engine.name());
        poller.setDaemon(true);
        poller.start();
        try {
            portAgent.agent.listen(serviceId, new Passive());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private static long receiveOffset(int index) {
        return (long) index * BUFFER;
    }

    private static long sendOffset(int index) {
        return (long) (RECEIVE_BUFFERS + index) * BUFFER;
    }

    // ---- the data path ---------------------------------------------------------------------------------

    /**
     * Sends a unicast frame to a peer that announced the RC flag: over its connection when it is up,
     * held while it is being set up; null when the frame should go over UD (the connection failed
     * recently, or this mode is closing).
     */
    TransmitResult send(PathEntry path, LinkAddress destination, int etherType, MemorySegment payload) {
        if (!running) {
            return null;
        }
        CmLinkConnection c = path.connection;
        int peer = destination.qpn().value();
        if (c == null || c.owner != this || c.peerUdQpn != peer || c.state == CmLinkConnection.State.CLOSED
                || (c.state == CmLinkConnection.State.FAILED && clock.nanoTime() - c.retryAtNanos >= 0)) {
            c = connect(path, peer, c);
            if (c == null) {
                return null;
            }
        }
        long length = payload.byteSize() + EncapsulationHeader.LENGTH;
        switch (c.state) {
            case UP -> {
                if (length > c.sendLimit) {
                    // ipoib_cm.c, ipoib_cm_send: a frame over the connection's MTU is dropped.
                    return stats.drop(TransmitResult.DROPPED_TOO_BIG);
                }
                return post(c, etherType, payload, (int) length);
            }
            case CONNECTING -> {
                return hold(c, etherType, payload, (int) length);
            }
            default -> {
                sentOverUd.increment();
                return null;
            }
        }
    }

    private TransmitResult post(CmLinkConnection c, int etherType, MemorySegment payload, int length) {
        int index = takeSendBuffer();
        if (index < 0) {
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        long at = sendOffset(index);
        EncapsulationHeader.write(buffers, at, etherType);
        MemorySegment.copy(payload, 0, buffers, at + EncapsulationHeader.LENGTH, payload.byteSize());
        return postBuffer(c, index, length);
    }

    private TransmitResult postBuffer(CmLinkConnection c, int index, int length) {
        RcQueuePair qp = c.qp;
        boolean posted;
        try {
            posted = qp != null && qp.postSend(SEND_TAG | index, region, sendOffset(index), length);
        } catch (VerbsException e) {
            posted = false; // the queue pair went to ERROR: the frame is lost like a failed send
        }
        if (!posted) {
            releaseSendBuffer(index);
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        c.lastUsedNanos = clock.nanoTime();
        c.txPackets.increment();
        c.txBytes.add(length - EncapsulationHeader.LENGTH);
        stats.txPackets.increment();
        stats.txBytes.add(length - EncapsulationHeader.LENGTH);
        return TransmitResult.SENT;
    }

    private TransmitResult hold(CmLinkConnection c, int etherType, MemorySegment payload, int length) {
        if (length > RECEIVE_MTU) {
            return stats.drop(TransmitResult.DROPPED_TOO_BIG);
        }
        int index = takeSendBuffer();
        if (index < 0) {
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        long at = sendOffset(index);
        EncapsulationHeader.write(buffers, at, etherType);
        MemorySegment.copy(payload, 0, buffers, at + EncapsulationHeader.LENGTH, payload.byteSize());
        synchronized (this) {
            if (c.state == CmLinkConnection.State.CONNECTING && c.pendingCount < CmLinkConnection.PENDING) {
                c.pendingBuffer[c.pendingCount] = index;
                c.pendingLength[c.pendingCount++] = length;
                return TransmitResult.QUEUED;
            }
            if (c.state == CmLinkConnection.State.CONNECTING) {
                releaseSendBufferLocked(index);
                return stats.drop(TransmitResult.DROPPED_NO_BUFFER); // the hold is full
            }
            if (c.state != CmLinkConnection.State.UP) {
                releaseSendBufferLocked(index);
                return null; // rejected or closed meanwhile: UD takes it
            }
        }
        return postBuffer(c, index, length); // it came up meanwhile
    }

    private synchronized int takeSendBuffer() {
        return freeTop == 0 ? -1 : freeSend[--freeTop];
    }

    private synchronized void releaseSendBuffer(int index) {
        releaseSendBufferLocked(index);
    }

    private void releaseSendBufferLocked(int index) {
        freeSend[freeTop++] = index;
    }

    // ---- the active side -------------------------------------------------------------------------------

    /** A new connection to the peer (replacing the path's old one), set up on the CM thread. */
    private CmLinkConnection connect(PathEntry path, int peerUdQpn, CmLinkConnection old) {
        PathRecord record = path.record;
        if (record == null) {
            return null;
        }
        CmLinkConnection c;
        synchronized (this) {
            if (!running) {
                return null;
            }
            CmLinkConnection current = path.connection;
            if (current != old) {
                return current; // another sender started one meanwhile
            }
            if (old != null && old.owner == this) {
                discard(old, "replaced");
            }
            c = new CmLinkConnection(true, this, path, peerUdQpn, record.destinationLid().value(),
                    record.destinationGid(), clock.nanoTime());
            connections.add(c);
            path.connection = c;
        }
        portAgent.loop.execute(() -> startRequest(c, record, path.serviceLevel));
        return c;
    }

    /** On the CM thread: the RC queue pair in INIT, then the REQ. */
    private void startRequest(CmLinkConnection c, PathRecord record, int serviceLevel) {
        int psn = nextPsn();
        try {
            RcQueuePair qp = port.createRcQueuePair(new RcQueuePairConfig(cq, cq, srq, SEND_DEPTH, 1, pkeyIndex));
            synchronized (this) {
                if (c.state != CmLinkConnection.State.CONNECTING || !running) {
                    closeQuietly(qp);
                    return;
                }
                c.qp = qp;
                c.localQpn = qp.qpn().value();
                publish();
            }
        } catch (RuntimeException e) {
            failed(c, "no RC queue pair: " + e.getMessage(), CmRej.NO_QP);
            return;
        }
        boolean global = record.hopLimit() > 1;
        CmPath path = new CmPath(port.attributes().lid().value(), record.destinationLid().value(), gid,
                record.destinationGid(), record.flowLabel(), record.rate().code(), record.trafficClass(),
                record.hopLimit(), serviceLevel, !global, ACK_TIMEOUT);
        ConnectRequest request = new ConnectRequest(IpoibCm.serviceId(c.peerUdQpn), c.localQpn, psn, pkeyValue,
                record.mtu().code(), path, true, IpoibCm.privateData(udQpn, RECEIVE_MTU));
        long started = System.nanoTime();
        CmEndpoint peer = new CmEndpoint(record.destinationLid().value(), record.destinationGid(), 0);
        portAgent.agent.connect(peer, request, rep -> accepted(c, rep, record, serviceLevel, psn))
                .whenComplete((cm, failure) -> {
                    if (failure != null) {
                        int reason = failure instanceof CmException e ? e.rejectReason()
                                : failure.getCause() instanceof CmException e2 ? e2.rejectReason() : CmRej.TIMEOUT;
                        failed(c, failure.getMessage(), reason);
                    } else {
                        up(c, cm, System.nanoTime() - started);
                    }
                });
    }

    /** The peer's REP: its receive MTU checked (Linux rejects ≤ 4), the queue pair to RTR and RTS. */
    private CmDecision accepted(CmLinkConnection c, CmRep rep, PathRecord record, int serviceLevel, int psn) {
        int peerMtu;
        try {
            peerMtu = IpoibCm.receiveMtu(rep.privateData());
        } catch (DecodeException e) {
            return CmDecision.reject(CmRej.CONSUMER_DEFINED);
        }
        if (peerMtu <= EncapsulationHeader.LENGTH) {
            // ipoib_cm.c, ipoib_cm_rep_handler: "Rejecting connection: mtu %d <= %d".
            c.why = "the REP's MTU " + peerMtu + " is not above " + EncapsulationHeader.LENGTH;
            return CmDecision.reject(CmRej.CONSUMER_DEFINED);
        }
        RcQueuePair qp = c.qp;
        try {
            qp.readyToReceive(new RcReceiveAttributes(Qpn.of(rep.localQpn()), PathCache.vector(record, serviceLevel),
                    record.mtu(), rep.startingPsn()));
            qp.readyToSend(new RcSendAttributes(psn, ACK_TIMEOUT, RETRIES, 7));
        } catch (RuntimeException e) {
            c.why = "RTR/RTS failed: " + e.getMessage();
            return CmDecision.reject(CmRej.NO_RESOURCES);
        }
        c.remoteQpn = rep.localQpn();
        c.sendPsn = psn;
        c.receivePsn = rep.startingPsn();
        c.sendLimit = Math.min(peerMtu, RECEIVE_MTU);
        return CmDecision.ready();
    }

    /** Established: the held frames go first, in order, then the data path sends directly. */
    private void up(CmLinkConnection c, CmConnection cm, long setupNanos) {
        int[] held;
        int[] lengths;
        int count;
        synchronized (this) {
            c.cm = cm;
            if (c.state != CmLinkConnection.State.CONNECTING || !running) {
                portAgent.agent.disconnect(cm);
                return;
            }
            count = c.pendingCount;
            held = c.pendingBuffer.clone();
            lengths = c.pendingLength.clone();
            c.pendingCount = 0;
            c.setupNanos = setupNanos;
            // Posted under the lock so that no sender overtakes the held frames.
            for (int i = 0; i < count; i++) {
                postBuffer(c, held[i], lengths[i]);
            }
            c.state = CmLinkConnection.State.UP;
        }
        established.increment();
        // A DREQ from the peer (it left connected mode, went idle, went down) ends this side too.
        cm.whenClosed().thenRun(() -> {
            synchronized (this) {
                discard(c, "disconnected by the peer");
            }
        });
        engine.hooks().info(engine.name() + ": connected to QPN 0x" + Integer.toHexString(c.peerUdQpn) + " (LID "
                + c.peerLid + ", RC QPN 0x" + Integer.toHexString(c.remoteQpn) + ", MTU " + (c.sendLimit - 4) + ")");
    }

    /** Rejected or failed: the held frames go over UD when they fit, the peer waits for {@link #RETRY_NANOS}. */
    private void failed(CmLinkConnection c, String why, int reason) {
        List<int[]> held = new ArrayList<>();
        synchronized (this) {
            if (c.state == CmLinkConnection.State.CLOSED) {
                return;
            }
            if (reason != CmRej.TIMEOUT) {
                rejected.increment();
            }
            failures.increment();
            c.why = c.why.isEmpty() ? String.valueOf(why) : c.why;
            c.retryAtNanos = clock.nanoTime() + RETRY_NANOS;
            c.state = CmLinkConnection.State.FAILED;
            for (int i = 0; i < c.pendingCount; i++) {
                held.add(new int[] {c.pendingBuffer[i], c.pendingLength[i]});
            }
            c.pendingCount = 0;
            destroyQp(c);
        }
        for (int[] h : held) {
            sendHeldOverUd(c, h[0], h[1]);
            releaseSendBuffer(h[0]);
        }
        engine.hooks().info(engine.name() + ": no connection to QPN 0x" + Integer.toHexString(c.peerUdQpn) + " (LID "
                + c.peerLid + "): " + why + "; datagram mode for it, next attempt in "
                + TimeUnit.NANOSECONDS.toSeconds(RETRY_NANOS) + " s");
    }

    private void sendHeldOverUd(CmLinkConnection c, int index, int length) {
        LinkResources r = engine.resourcesForConnectedMode();
        if (r == null || c.path == null) {
            return;
        }
        long at = sendOffset(index);
        try {
            int etherType = EncapsulationHeader.etherType(buffers, at);
            r.sendUnicastOverUd(c.path, Qpn.of(c.peerUdQpn), etherType,
                    buffers.asSlice(at + EncapsulationHeader.LENGTH, length - EncapsulationHeader.LENGTH));
        } catch (DecodeException e) {
            stats.txErrors.increment();
        }
    }

    // ---- the passive side ------------------------------------------------------------------------------

    /** The REQs for this interface's service ID (runs on the CM thread). */
    private final class Passive implements CmAgent.PassiveHandler {
        @Override
        public CmDecision onRequest(CmReq req, CmEndpoint from) {
            int peerQpn;
            try {
                peerQpn = IpoibCm.udQpn(req.privateData());
            } catch (DecodeException e) {
                return CmDecision.reject(CmRej.CONSUMER_DEFINED);
            }
            CmPath p = req.primary();
            CmLinkConnection c = new CmLinkConnection(false, ConnectedMode.this, null, peerQpn, p.localLid(),
                    p.localGid(), clock.nanoTime());
            int psn = nextPsn();
            RcQueuePair qp;
            try {
                qp = port.createRcQueuePair(new RcQueuePairConfig(cq, cq, srq, SEND_DEPTH, 1, pkeyIndex));
            } catch (RuntimeException e) {
                return CmDecision.reject(CmRej.NO_QP);
            }
            try {
                AddressVector back = new AddressVector(Lid.of(p.localLid()), p.serviceLevel(),
                        Rate.fromCode(p.packetRate()), !p.subnetLocal(), p.subnetLocal() ? null : p.localGid(),
                        p.flowLabel(), p.hopLimit(), p.trafficClass(), 0);
                qp.readyToReceive(new RcReceiveAttributes(Qpn.of(req.localQpn()), back, IbMtu.fromCode(req.pathMtu()),
                        req.startingPsn()));
                qp.readyToSend(new RcSendAttributes(psn, ACK_TIMEOUT, RETRIES, 7));
            } catch (RuntimeException e) {
                closeQuietly(qp);
                return CmDecision.reject(CmRej.NO_RESOURCES);
            }
            synchronized (ConnectedMode.this) {
                if (!running) {
                    closeQuietly(qp);
                    return CmDecision.reject(CmRej.NO_RESOURCES);
                }
                c.qp = qp;
                c.localQpn = qp.qpn().value();
                c.remoteQpn = req.localQpn();
                c.sendPsn = psn;
                c.receivePsn = req.startingPsn();
                try {
                    c.sendLimit = Math.min(IpoibCm.receiveMtu(req.privateData()), RECEIVE_MTU);
                } catch (DecodeException impossible) {
                    c.sendLimit = 0;
                }
                connections.add(c);
                publish();
            }
            return CmDecision.accept(c.localQpn, psn, IpoibCm.privateData(udQpn, RECEIVE_MTU));
        }

        @Override
        public void onEstablished(CmConnection connection) {
            CmLinkConnection c = byLocalQpn(connection.localQpn());
            if (c != null) {
                c.cm = connection;
                c.state = CmLinkConnection.State.UP;
                established.increment();
            }
        }

        @Override
        public void onClosed(CmConnection connection, String why) {
            CmLinkConnection c = byLocalQpn(connection.localQpn());
            if (c != null) {
                synchronized (ConnectedMode.this) {
                    discard(c, why);
                }
            }
        }
    }

    private CmLinkConnection byLocalQpn(int qpn) {
        for (CmLinkConnection c : byQpn) {
            if (c.localQpn == qpn) {
                return c;
            }
        }
        return null;
    }

    // ---- completions -----------------------------------------------------------------------------------

    private void pollLoop() {
        WorkCompletions batch = new WorkCompletions(64);
        while (running) {
            int n;
            try {
                n = cq.poll(batch);
                if (n == 0) {
                    cq.await(100, TimeUnit.MILLISECONDS);
                    continue;
                }
            } catch (InterruptedException e) {
                break;
            } catch (VerbsException e) {
                break;
            }
            for (int i = 0; i < n; i++) {
                long id = batch.workRequestId(i);
                CompletionStatus status = batch.status(i);
                if ((id & SEND_TAG) != 0) {
                    releaseSendBuffer((int) (id & 0xFFFF));
                    if (status != CompletionStatus.SUCCESS && status != CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                        sendFailed(batch.queuePairNumber(i), status);
                    }
                    continue;
                }
                int index = (int) id;
                if (status == CompletionStatus.SUCCESS) {
                    receive(index, batch.byteLength(i), batch.queuePairNumber(i));
                } else if (status != CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                    stats.rxErrors.increment();
                }
                if (running) {
                    try {
                        srq.postReceive(index, region, receiveOffset(index), BUFFER);
                    } catch (VerbsException closed) {
                        return;
                    }
                }
            }
        }
    }

    /** An RC send failed (retry exceeded, the peer's QP gone): the connection is over; UD until the retry. */
    private void sendFailed(int localQpn, CompletionStatus status) {
        stats.txErrors.increment();
        CmLinkConnection c = byLocalQpn(localQpn);
        if (c == null) {
            return;
        }
        c.txErrors.increment();
        CmConnection cm = c.cm;
        if (cm != null) {
            portAgent.agent.disconnect(cm);
        }
        if (c.active) {
            failed(c, "send failed: " + status, CmRej.TIMEOUT);
        } else {
            synchronized (this) {
                discard(c, "send failed: " + status);
            }
        }
    }

    private void receive(int index, int byteLength, int localQpn) {
        CmLinkConnection c = byLocalQpn(localQpn);
        long at = receiveOffset(index);
        if (c == null || byteLength < EncapsulationHeader.LENGTH) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        int etherType;
        try {
            etherType = EncapsulationHeader.etherType(buffers, at);
        } catch (DecodeException e) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        c.lastUsedNanos = clock.nanoTime();
        FrameHandler[] handlers = engine.hooks().handlers(etherType);
        if (handlers.length == 0) {
            stats.rxDroppedNoHandler.increment();
            return;
        }
        int payload = byteLength - EncapsulationHeader.LENGTH;
        c.rxPackets.increment();
        c.rxBytes.add(payload);
        stats.rxPackets.increment();
        stats.rxBytes.add(payload);
        frame.set(index, etherType, payload, c);
        for (FrameHandler handler : handlers) {
            try {
                handler.onFrame(engine, frame);
            } catch (Throwable t) {
                stats.handlerErrors.increment();
                engine.logHandlerError(handler, t);
            }
        }
    }

    /** The receive thread's view of an RC frame: no GRH area, the header at the buffer's start. */
    private final class Frame implements ReceivedFrame {
        private int index;
        private int etherType;
        private int payloadLength;
        private CmLinkConnection from;

        void set(int index, int etherType, int payloadLength, CmLinkConnection from) {
            this.index = index;
            this.etherType = etherType;
            this.payloadLength = payloadLength;
            this.from = from;
        }

        @Override public int etherType() { return etherType; }
        @Override public MemorySegment buffer() { return receiveViews[index]; }
        @Override public long payloadOffset() { return EncapsulationHeader.LENGTH; }
        @Override public int payloadLength() { return payloadLength; }
        /** The peer's UD QPN (from its private data): the interface it is, as a UD frame would say. */
        @Override public int sourceQpn() { return from.peerUdQpn; }
        @Override public int sourceLid() { return from.peerLid; }
        @Override public boolean grhPresent() { return false; }
        @Override public Gid sourceGid() { return from.peerGid; }
        @Override public Gid destinationGid() { return gid; }
        @Override public boolean multicast() { return false; }
    }

    // ---- the ICMP Linux emulates for frames only UD can carry ------------------------------------------

    /**
     * An IP packet that UD refused as too big for {@code udMtu}: its ICMP "fragmentation needed" or
     * ICMPv6 "packet too big" goes to the local stack's frame handlers, on the control thread (not
     * the sender's: the handler may send), as if it had arrived.
     */
    void tooBig(int etherType, MemorySegment payload, int udMtu) {
        byte[] notice = TooBigNotice.build(etherType, payload, udMtu);
        if (notice == null) {
            return;
        }
        tooBigNotices.increment();
        engine.control().execute(() -> {
            LocalFrame f = new LocalFrame(etherType, MemorySegment.ofArray(notice).asReadOnly(), udQpn, gid);
            for (FrameHandler handler : engine.hooks().handlers(etherType)) {
                try {
                    handler.onFrame(engine, f);
                } catch (Throwable t) {
                    stats.handlerErrors.increment();
                    engine.logHandlerError(handler, t);
                }
            }
        });
    }

    /** A frame the link made itself (the ICMP error): the whole buffer is the payload. */
    private record LocalFrame(int etherType, MemorySegment buffer, int sourceQpn, Gid destinationGid)
            implements ReceivedFrame {
        @Override public long payloadOffset() { return 0; }
        @Override public int payloadLength() { return (int) buffer.byteSize(); }
        @Override public int sourceLid() { return 0; }
        @Override public boolean grhPresent() { return false; }
        @Override public Gid sourceGid() { return destinationGid; }
        @Override public boolean multicast() { return false; }
    }

    // ---- idle connections, listing, teardown -------------------------------------------------------------

    /** Tears down the connections idle for {@link #IDLE_NANOS} (the link's reaper calls it every second). */
    void reapIdle() {
        long now = clock.nanoTime();
        List<CmConnection> disconnect = new ArrayList<>();
        synchronized (this) {
            for (CmLinkConnection c : new ArrayList<>(connections)) {
                if (c.state == CmLinkConnection.State.UP && now - c.lastUsedNanos > IDLE_NANOS) {
                    reaped.increment();
                    if (c.cm != null) {
                        disconnect.add(c.cm);
                    }
                    discard(c, "idle for " + TimeUnit.NANOSECONDS.toSeconds(now - c.lastUsedNanos) + " s");
                } else if (c.state == CmLinkConnection.State.FAILED && c.path != null && c.path.connection != c) {
                    connections.remove(c);
                }
            }
        }
        disconnect.forEach(portAgent.agent::disconnect);
    }

    /** The connections for {@code ipoib:cm}. */
    synchronized List<CmLinkConnection> connections() {
        return List.copyOf(connections);
    }

    /** Whether frames to this peer go over an established connection now. */
    boolean connectedTo(Gid peer, int peerUdQpn) {
        for (CmLinkConnection c : byQpn) {
            if (c.active && c.state == CmLinkConnection.State.UP && c.peerUdQpn == peerUdQpn && c.peerGid.equals(peer)) {
                return true;
            }
        }
        return false;
    }

    long serviceId() {
        return serviceId;
    }

    /** The port's CM agent's counters (messages sent and received by kind, retransmissions, timeouts). */
    java.util.Map<String, Long> agentCounters() {
        java.util.Map<String, Long> out = new java.util.TreeMap<>(portAgent.agent.counters());
        out.put("malformed", portAgent.malformed.sum());
        return out;
    }

    /**
     * Tears a connection down now (DREQ) and forgets it; the next frame to its peer sets up a new
     * one. For the benchmarks' set-up figure ({@link StandaloneLink#connectionSetupNanos}).
     */
    void disconnect(CmLinkConnection c) {
        CmConnection cm;
        synchronized (this) {
            cm = c.cm;
            discard(c, "disconnected locally");
        }
        if (cm != null) {
            portAgent.agent.disconnect(cm);
        }
    }

    /** Holds this: the connection is over; its queue pair destroyed, its held frames freed. */
    private void discard(CmLinkConnection c, String why) {
        if (c.state == CmLinkConnection.State.CLOSED) {
            return;
        }
        c.state = CmLinkConnection.State.CLOSED;
        c.why = why;
        for (int i = 0; i < c.pendingCount; i++) {
            releaseSendBufferLocked(c.pendingBuffer[i]);
        }
        c.pendingCount = 0;
        destroyQp(c);
        connections.remove(c);
        if (c.path != null && c.path.connection == c) {
            c.path.connection = null;
        }
        publish();
    }

    private void destroyQp(CmLinkConnection c) {
        RcQueuePair qp = c.qp;
        if (qp != null) {
            closeQuietly(qp);
        }
    }

    /** Holds this. */
    private void publish() {
        byQpn = connections.stream().filter(c -> c.localQpn != 0).toArray(CmLinkConnection[]::new);
    }

    private int nextPsn() {
        synchronized (psns) {
            return psns.nextInt(0x100_0000);
        }
    }

    /**
     * Stops listening, disconnects every connection (DREQ) and frees the verbs resources: the link
     * went down or left connected mode. Called on the link's control thread, never on the CM thread.
     */
    void close() {
        List<CmConnection> disconnect = new ArrayList<>();
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            for (CmLinkConnection c : new ArrayList<>(connections)) {
                if (c.cm != null && c.state == CmLinkConnection.State.UP) {
                    disconnect.add(c.cm);
                }
                discard(c, "connected mode closed");
            }
        }
        // Posted, not waited for: the CM thread may be waiting for this object's lock right now.
        portAgent.loop.execute(() -> portAgent.agent.stopListening(serviceId));
        disconnect.forEach(portAgent.agent::disconnect);
        try {
            cq.wakeup();
        } catch (RuntimeException ignored) {
            // The provider is gone.
        }
        if (Thread.currentThread() != poller) {
            try {
                poller.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly(srq, cq, region);
    }

    private static void closeQuietly(AutoCloseable... resources) {
        for (AutoCloseable r : resources) {
            if (r != null) {
                try {
                    r.close();
                } catch (Exception ignored) {
                    // Best effort: the provider may already have released it.
                }
            }
        }
    }
}
