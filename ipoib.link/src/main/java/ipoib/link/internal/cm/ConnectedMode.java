package ipoib.link.internal.cm;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.cm.CmConnection;
import ipoib.codec.cm.CmRej;
import ipoib.codec.cm.IpoibCm;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkResources;
import ipoib.link.internal.LinkStatistics;
import ipoib.link.internal.PathEntry;
import ipoib.runtime.Clock;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
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
 * <p>This class owns the period's resources (completion queue, buffers, receive thread, the
 * listen) and its counters, routes a frame to its connection, reaps idle connections and tears
 * everything down. The parts: the connections and their lock ({@link CmConnectionTable}), the
 * active side ({@link CmActiveSide}), the send path ({@link CmFrameSender}), the passive side
 * ({@link CmPassiveSide}), the completion thread ({@link CmReceiveThread}), the buffers
 * ({@link CmBuffers}), the ICMP error ({@link TooBigNotice}).
 *
 * <p>Threads: {@link #send} runs on the senders' threads and allocates nothing once a connection
 * is up; the CM callbacks run on the port's CM thread ({@link CmPortAgent}); completions of every
 * connection go to one completion queue drained by {@code ipoib-cm-rx-<name>}; the idle check and
 * {@link #close} run on the link's control loop. The lock rule is {@link CmConnectionTable}'s:
 * nothing holding the table's lock waits for another of these threads; {@code listen} (which waits
 * for the CM thread) is called without locks and {@code stopListening} on close is posted.
 */
public final class ConnectedMode {
    /** IPOIB_CM_MTU (drivers/infiniband/ulp/ipoib/ipoib.h): 64 KiB − 16, the largest IP packet. */
    public static final int MTU = 0x10000 - 0x10;
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
    private final int udQpn;
    private final Gid gid;
    private final long serviceId;
    private final CompletionQueue cq;
    private final CmBuffers buffers;
    private final CmReceiveThread receiver;
    private final SplittableRandom psns = new SplittableRandom();
    /** The connections of both sides, and the lock their state changes under. */
    final CmConnectionTable table;
    private final CmFrameSender sender;
    private final CmActiveSide active;

    public final LongAdder rejected = new LongAdder();
    public final LongAdder failures = new LongAdder();
    public final LongAdder reaped = new LongAdder();
    public final LongAdder established = new LongAdder();
    public final LongAdder sentOverUd = new LongAdder();
    /** ICMP "fragmentation needed" / "packet too big" handed to the local stack. */
    public final LongAdder tooBigNotices = new LongAdder();

    /**
     * Creates the shared receive queue, the completion queue and the buffers, and listens.
     *
     * @throws VerbsException when the provider offers no RC (the message says why); nothing stays allocated
     */
    public ConnectedMode(LinkEngine engine, Port port, CmPortAgent portAgent, int pkeyIndex, int pkeyValue, Qpn udQpn, Gid gid) {
        this.engine = engine;
        this.stats = engine.stats;
        this.clock = engine.control().clock();
        this.port = port;
        this.portAgent = portAgent;
        this.pkeyIndex = pkeyIndex;
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
        this.table = new CmConnectionTable(buffers);
        this.sender = new CmFrameSender(engine, buffers, table, sentOverUd);
        this.active = new CmActiveSide(this, engine, port, portAgent, pkeyValue, gid, buffers, table, sender);
        this.receiver = new CmReceiveThread(this, engine, cq, buffers, gid);
        receiver.start();
        try {
            portAgent.agent.listen(serviceId, new CmPassiveSide(this));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Sends a unicast frame to a peer that announced the RC flag: over its connection when it is up,
     * held while it is being set up; null when the frame should go over UD (the connection failed
     * recently, or this mode is closing).
     */
    public TransmitResult send(PathEntry path, LinkAddress destination, int etherType, MemorySegment payload) {
        if (!table.open()) {
            return null;
        }
        CmLinkConnection c = active.connectionFor(path, destination.qpn().value());
        return c == null ? null : sender.send(c, etherType, payload);
    }

    // ---- what both sides and the receive thread use -------------------------------------------------

    /** An RC queue pair on this interface's completion queue and shared receive queue, in INIT. */
    RcQueuePair createQueuePair() {
        return port.createRcQueuePair(new RcQueuePairConfig(cq, cq, buffers.srq, SEND_DEPTH, 1, pkeyIndex));
    }

    int nextPsn() {
        synchronized (psns) {
            return psns.nextInt(0x100_0000);
        }
    }

    int udQpn() {
        return udQpn;
    }

    long now() {
        return clock.nanoTime();
    }

    /** An RC send failed (retry exceeded, the peer's QP gone): the connection is over; UD until the retry. */
    void sendFailed(int localQpn, CompletionStatus status) {
        stats.txErrors.increment();
        CmLinkConnection c = table.byLocalQpn(localQpn);
        if (c == null) {
            return;
        }
        c.txErrors.increment();
        // Over first, then the DREQ: its DREP (on the CM thread) finds the connection over already.
        if (c.active) {
            active.failed(c, "send failed: " + status, CmRej.TIMEOUT);
        } else {
            table.end(c, "send failed: " + status);
        }
        CmConnection cm = c.cm;
        if (cm != null) {
            portAgent.agent.disconnect(cm);
        }
    }

    // ---- the ICMP Linux emulates for frames only UD can carry ------------------------------------------

    /**
     * An IP packet that UD refused as too big for {@code udMtu} ({@code toGroup}: sent to the
     * broadcast or a multicast group): its ICMP "fragmentation needed" or ICMPv6 "packet too big"
     * goes to the local stack's frame handlers, on the control thread (not the sender's: the
     * handler may send), as if it had arrived.
     */
    public void tooBig(int etherType, MemorySegment payload, int udMtu, boolean toGroup) {
        byte[] notice = TooBigNotice.build(etherType, payload, udMtu, toGroup);
        if (notice == null) {
            return;
        }
        tooBigNotices.increment();
        engine.control().execute(() -> {
            engine.dispatch(engine.hooks().handlers(etherType),
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
    public void reapIdle() {
        table.removeIdle(clock.nanoTime(), IDLE_NANOS, reaped).forEach(portAgent.agent::disconnect);
    }

    /** The connections for {@code ipoib:cm}. */
    public List<CmLinkConnection> connections() {
        return table.snapshot();
    }

    /** Whether frames to this peer go over an established connection now. */
    public boolean connectedTo(Gid peer, int peerUdQpn) {
        return table.connectedTo(peer, peerUdQpn);
    }

    public long serviceId() {
        return serviceId;
    }

    /**
     * The port's CM agent's counters (messages sent and received by kind, retransmissions, timeouts,
     * malformed MADs, failed control tasks).
     */
    public Map<String, Long> agentCounters() {
        Map<String, Long> out = new TreeMap<>(portAgent.agent.counters());
        out.put("malformed", portAgent.malformed.sum());
        out.put("loop_failures", portAgent.failures.count());
        return out;
    }

    /**
     * Tears a connection down now (DREQ) and forgets it; the next frame to its peer sets up a new
     * one. For the benchmarks' set-up figure ({@link LinkEngine#connectionSetupNanos}).
     */
    public void disconnect(CmLinkConnection c) {
        CmConnection cm;
        synchronized (table) {
            cm = c.cm;
            table.discard(c, "disconnected locally");
        }
        if (cm != null) {
            portAgent.agent.disconnect(cm);
        }
    }

    /**
     * Stops listening, disconnects every connection (DREQ) and frees the verbs resources: the link
     * went down or left connected mode. Called on the link's control thread, never on the CM thread.
     */
    public void close() {
        List<CmConnection> disconnect = table.close("connected mode closed");
        if (disconnect == null) {
            return;
        }
        // Posted, not waited for: the CM thread may be waiting for the table's lock right now.
        portAgent.loop.execute(() -> portAgent.agent.stopListening(serviceId));
        disconnect.forEach(portAgent.agent::disconnect);
        receiver.stop();
        buffers.close();
        LinkResources.closeQuietly(cq);
    }
}
