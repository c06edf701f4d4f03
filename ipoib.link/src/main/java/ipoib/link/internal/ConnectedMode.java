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
 * <p>Size (~620 lines, over the usual 500 on purpose): the send path, the active side's set-up
 * and fallback, idle reaping and teardown all change one connection table under one lock, and
 * splitting them would spread that lock's rule over several classes. What does not need the
 * table's lock is out: the passive side ({@link CmPassiveSide}), the completion thread
 * ({@link CmReceiveThread}), the buffers ({@link CmBuffers}), the ICMP error ({@link TooBigNotice}).
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
    private static final int SEND_DEPTH = 32;
    /** RC ACK timeout code 14 (≈ 67 ms) and 7 retries, as Linux's ipoib_cm.c sets up the tx QP. */
    static final int ACK_TIMEOUT = 14;
    static final int RETRIES = 7;

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
    private final CmBuffers buffers;
    private final CmReceiveThread receiver;
    private final SplittableRandom psns = new SplittableRandom();

    // Guarded by this.
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
        this.cq = port.createCompletionQueue(CmBuffers.RECEIVE + CmBuffers.SEND * 2);
        try {
            this.buffers = new CmBuffers(port);
        } catch (RuntimeException e) {
            LinkResources.closeQuietly(cq);
            throw e;
        }
        this.receiver = new CmReceiveThread(this, engine, cq, buffers, gid);
        receiver.start();
        try {
            portAgent.agent.listen(serviceId, new CmPassiveSide(this));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
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
        int index = buffers.fill(etherType, payload);
        return index < 0 ? stats.drop(TransmitResult.DROPPED_NO_BUFFER) : postBuffer(c, index, length);
    }

    private TransmitResult postBuffer(CmLinkConnection c, int index, int length) {
        RcQueuePair qp = c.qp;
        // Before the post: the transport may deliver the frame before postSend returns, and a
        // reader that saw the frame arrive must see the connection used (the idle check).
        c.lastUsedNanos = clock.nanoTime();
        // Captured before posting: the buffer is reused once the send completes.
        LinkCapture capture = engine.captures().running();
        int slot = capture == null ? -1 : capture.claim();
        if (slot >= 0) {
            capture.fillSent(slot, c.peerUdQpn, c.peerGid, buffers.block(), CmBuffers.sendOffset(index), length);
        }
        boolean posted;
        try {
            posted = qp != null && qp.postSend(CmReceiveThread.SEND_TAG | index, buffers.region,
                    CmBuffers.sendOffset(index), length);
        } catch (VerbsException e) {
            posted = false; // the queue pair went to ERROR: the frame is lost like a failed send
        }
        if (!posted) {
            if (slot >= 0) {
                capture.abort(slot);
            }
            buffers.release(index);
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        if (slot >= 0) {
            capture.commit(slot);
        }
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
        int index = buffers.fill(etherType, payload);
        if (index < 0) {
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        synchronized (this) {
            if (c.state == CmLinkConnection.State.CONNECTING && c.pendingCount < CmLinkConnection.PENDING) {
                c.pendingBuffer[c.pendingCount] = index;
                c.pendingLength[c.pendingCount++] = length;
                return TransmitResult.QUEUED;
            }
            if (c.state == CmLinkConnection.State.CONNECTING) {
                buffers.release(index);
                return stats.drop(TransmitResult.DROPPED_NO_BUFFER); // the hold is full
            }
            if (c.state != CmLinkConnection.State.UP) {
                buffers.release(index);
                return null; // rejected or closed meanwhile: UD takes it
            }
        }
        return postBuffer(c, index, length); // it came up meanwhile
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
            RcQueuePair qp = createQueuePair();
            synchronized (this) {
                if (c.state != CmLinkConnection.State.CONNECTING || !running) {
                    LinkResources.closeQuietly(qp);
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
            buffers.release(h[0]);
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
        long at = CmBuffers.sendOffset(index);
        try {
            int etherType = EncapsulationHeader.etherType(buffers.block(), at);
            r.sendUnicastOverUd(c.path, Qpn.of(c.peerUdQpn), etherType,
                    buffers.block().asSlice(at + EncapsulationHeader.LENGTH, length - EncapsulationHeader.LENGTH));
        } catch (DecodeException e) {
            stats.txErrors.increment();
        }
    }

    // ---- what the passive side (CmPassiveSide) and the receive thread (CmReceiveThread) use ----------

    /** An RC queue pair on this interface's completion queue and shared receive queue, in INIT. */
    RcQueuePair createQueuePair() {
        return port.createRcQueuePair(new RcQueuePairConfig(cq, cq, buffers.srq, SEND_DEPTH, 1, pkeyIndex));
    }

    /** Adds a passive connection; false when this mode is closing. */
    synchronized boolean register(CmLinkConnection c) {
        if (!running) {
            return false;
        }
        connections.add(c);
        publish();
        return true;
    }

    /** The connection is over (the peer disconnected, or it failed). */
    synchronized void end(CmLinkConnection c, String why) {
        discard(c, why);
    }

    int udQpn() {
        return udQpn;
    }

    long now() {
        return clock.nanoTime();
    }

    /** The connection whose RC queue pair has that number (no lock, no allocation: the receive thread's lookup). */
    CmLinkConnection byLocalQpn(int qpn) {
        for (CmLinkConnection c : byQpn) {
            if (c.localQpn == qpn) {
                return c;
            }
        }
        return null;
    }

    /** An RC send failed (retry exceeded, the peer's QP gone): the connection is over; UD until the retry. */
    void sendFailed(int localQpn, CompletionStatus status) {
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
            end(c, "send failed: " + status);
        }
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
            CmReceiveThread.dispatch(engine, engine.hooks().handlers(etherType),
                    new LocalFrame(etherType, MemorySegment.ofArray(notice).asReadOnly(), udQpn, gid));
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
     * one. For the benchmarks' set-up figure ({@link LinkEngine#connectionSetupNanos}).
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
            buffers.release(c.pendingBuffer[i]);
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
            LinkResources.closeQuietly(qp);
        }
    }

    /** Holds this. */
    private void publish() {
        byQpn = connections.stream().filter(c -> c.localQpn != 0).toArray(CmLinkConnection[]::new);
    }

    int nextPsn() {
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
        receiver.stop();
        buffers.close();
        LinkResources.closeQuietly(cq);
    }
}
