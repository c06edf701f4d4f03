package ipoib.link.internal.cm;

import ipoib.api.Gid;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.cm.CmConnection;
import ipoib.cm.CmDecision;
import ipoib.cm.CmEndpoint;
import ipoib.cm.CmException;
import ipoib.cm.ConnectRequest;
import ipoib.codec.DecodeException;
import ipoib.codec.cm.CmPath;
import ipoib.codec.cm.CmRej;
import ipoib.codec.cm.CmRep;
import ipoib.codec.cm.IpoibCm;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkResources;
import ipoib.link.internal.PathCache;
import ipoib.link.internal.PathEntry;
import ipoib.runtime.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The active side of one interface's connected mode (Linux: ipoib_cm_tx_init, ipoib_cm_send_req,
 * ipoib_cm_rep_handler): one connection per {@link PathEntry} (the entry holds it, as Linux's path
 * holds its CM tx), made by the first frame to a peer whose address carries the RC flag. The RC
 * queue pair and the REQ are made on the port's CM thread; the REP is checked and the queue pair
 * moved to RTR and RTS there; once established, the frames held meanwhile go out first. A REJ or a
 * failure sends the held frames over UD, and the peer's frames go over UD for
 * {@link ConnectedMode#RETRY_NANOS} before the next attempt.
 *
 * <p>Threads: {@link #connectionFor} runs on the senders' threads, the rest on the CM thread; the
 * state changes under the lock of {@link CmConnectionTable}, whose rule (no wait for the CM thread
 * under it) holds here: the CM agent is only posted to under it.
 */
final class CmActiveSide {
    private final ConnectedMode mode;
    private final LinkEngine engine;
    private final Clock clock;
    private final Port port;
    private final CmPortAgent portAgent;
    private final int pkeyValue;
    private final Gid gid;
    private final CmBuffers buffers;
    private final CmConnectionTable table;
    private final CmFrameSender sender;

    CmActiveSide(ConnectedMode mode, LinkEngine engine, Port port, CmPortAgent portAgent, int pkeyValue, Gid gid,
                 CmBuffers buffers, CmConnectionTable table, CmFrameSender sender) {
        this.mode = mode;
        this.engine = engine;
        this.clock = engine.control().clock();
        this.port = port;
        this.portAgent = portAgent;
        this.pkeyValue = pkeyValue;
        this.gid = gid;
        this.buffers = buffers;
        this.table = table;
        this.sender = sender;
    }

    /**
     * The path's connection to the peer, a new one when it has none to that peer of this mode, or
     * its last failed and the retry time has come; null when the frame should go over UD (no path
     * record yet, or connected mode is closing). Allocates nothing while the connection stands.
     */
    CmLinkConnection connectionFor(PathEntry path, int peerUdQpn) {
        CmLinkConnection c = path.connection;
        if (c == null || c.owner != mode || c.peerUdQpn != peerUdQpn || c.state == CmLinkConnection.State.CLOSED
                || (c.state == CmLinkConnection.State.FAILED && clock.nanoTime() - c.retryAtNanos >= 0)) {
            c = connect(path, peerUdQpn, c);
        }
        return c;
    }

    /** A new connection to the peer (replacing the path's old one), set up on the CM thread. */
    private CmLinkConnection connect(PathEntry path, int peerUdQpn, CmLinkConnection old) {
        PathRecord record = path.record;
        if (record == null) {
            return null;
        }
        CmLinkConnection c;
        synchronized (table) {
            if (!table.open()) {
                return null;
            }
            CmLinkConnection current = path.connection;
            if (current != old) {
                return current; // another sender started one meanwhile
            }
            if (old != null && old.owner == mode) {
                table.discard(old, "replaced");
            }
            c = new CmLinkConnection(true, mode, path, peerUdQpn, record.destinationLid().value(),
                    record.destinationGid(), clock.nanoTime());
            table.add(c);
            path.connection = c;
        }
        portAgent.loop.execute(() -> startRequest(c, record, path.serviceLevel));
        return c;
    }

    /** On the CM thread: the RC queue pair in INIT, then the REQ. */
    private void startRequest(CmLinkConnection c, PathRecord record, int serviceLevel) {
        int psn = mode.nextPsn();
        try {
            RcQueuePair qp = mode.createQueuePair();
            synchronized (table) {
                if (c.state != CmLinkConnection.State.CONNECTING || !table.open()) {
                    LinkResources.closeQuietly(qp);
                    return;
                }
                c.qp = qp;
                c.localQpn = qp.qpn().value();
                table.publish();
            }
        } catch (RuntimeException e) {
            failed(c, "no RC queue pair: " + e.getMessage(), CmRej.NO_QP);
            return;
        }
        boolean global = record.hopLimit() > 1;
        CmPath path = new CmPath(port.attributes().lid().value(), record.destinationLid().value(), gid,
                record.destinationGid(), record.flowLabel(), record.rate().code(), record.trafficClass(),
                record.hopLimit(), serviceLevel, !global, ConnectedMode.ACK_TIMEOUT);
        ConnectRequest request = new ConnectRequest(IpoibCm.serviceId(c.peerUdQpn), c.localQpn, psn, pkeyValue,
                record.mtu().code(), path, true, IpoibCm.privateData(mode.udQpn(), ConnectedMode.RECEIVE_MTU));
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
            qp.readyToSend(new RcSendAttributes(psn, ConnectedMode.ACK_TIMEOUT, ConnectedMode.RETRIES, 7));
        } catch (RuntimeException e) {
            c.why = "RTR/RTS failed: " + e.getMessage();
            return CmDecision.reject(CmRej.NO_RESOURCES);
        }
        c.remoteQpn = rep.localQpn();
        c.sendPsn = psn;
        c.receivePsn = rep.startingPsn();
        c.sendLimit = Math.min(peerMtu, ConnectedMode.RECEIVE_MTU);
        return CmDecision.ready();
    }

    /** Established: the held frames go first, in order, then the data path sends directly. */
    private void up(CmLinkConnection c, CmConnection cm, long setupNanos) {
        int[] held;
        int[] lengths;
        int count;
        synchronized (table) {
            c.cm = cm;
            if (c.state != CmLinkConnection.State.CONNECTING || !table.open()) {
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
                sender.postBuffer(c, held[i], lengths[i]);
            }
            c.state = CmLinkConnection.State.UP;
        }
        mode.established.increment();
        // A DREQ from the peer (it left connected mode, went idle, went down) ends this side too.
        cm.whenClosed().thenRun(() -> table.end(c, "disconnected by the peer"));
        engine.hooks().info(engine.name() + ": connected to QPN 0x" + Integer.toHexString(c.peerUdQpn) + " (LID "
                + c.peerLid + ", RC QPN 0x" + Integer.toHexString(c.remoteQpn) + ", MTU " + (c.sendLimit - 4) + ")");
    }

    /** Rejected or failed: the held frames go over UD when they fit, the peer waits for {@link ConnectedMode#RETRY_NANOS}. */
    void failed(CmLinkConnection c, String why, int reason) {
        List<int[]> held = new ArrayList<>();
        synchronized (table) {
            if (c.state == CmLinkConnection.State.CLOSED) {
                return;
            }
            if (reason != CmRej.TIMEOUT) {
                mode.rejected.increment();
            }
            mode.failures.increment();
            c.why = c.why.isEmpty() ? String.valueOf(why) : c.why;
            c.retryAtNanos = clock.nanoTime() + ConnectedMode.RETRY_NANOS;
            c.state = CmLinkConnection.State.FAILED;
            for (int i = 0; i < c.pendingCount; i++) {
                held.add(new int[] {c.pendingBuffer[i], c.pendingLength[i]});
            }
            c.pendingCount = 0;
            CmConnectionTable.destroyQp(c);
        }
        for (int[] h : held) {
            sendHeldOverUd(c, h[0], h[1]);
            buffers.release(h[0]);
        }
        engine.hooks().info(engine.name() + ": no connection to QPN 0x" + Integer.toHexString(c.peerUdQpn) + " (LID "
                + c.peerLid + "): " + why + "; datagram mode for it, next attempt in "
                + TimeUnit.NANOSECONDS.toSeconds(ConnectedMode.RETRY_NANOS) + " s");
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
            engine.stats.txErrors.increment();
        }
    }
}
