package ipoib.cm;

import ipoib.codec.cm.CmDrep;
import ipoib.codec.cm.CmDreq;
import ipoib.codec.cm.CmMad;
import ipoib.codec.cm.CmMessage;
import ipoib.codec.cm.CmMra;
import ipoib.codec.cm.CmPrivateData;
import ipoib.codec.cm.CmRej;
import ipoib.codec.cm.CmRep;
import ipoib.codec.cm.CmReq;
import ipoib.codec.cm.CmRtu;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Counters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The CM agent of one port (IBA 12.9): connection set-up and tear-down for RC, both sides. All
 * state lives on the control loop; {@link #receive} may be called from any thread.
 *
 * <p>Retransmission: a REQ, REP or DREQ unanswered after twice the packet lifetime plus the
 * peer's response time is sent again with its TID, up to the retry count (IBA 12.6.4); then the
 * exchange fails with a REJ of reason Timeout (set-up) or ends in time-wait (tear-down). An MRA
 * stops the retransmission of the message it acknowledges and extends the wait by its service
 * timeout.
 */
public final class CmAgent implements AutoCloseable {

    /** The consumer of a service on the passive side. */
    public interface PassiveHandler {
        /** Accept (with a QP already in RTR) or reject a REQ; runs on the control loop. */
        CmDecision onRequest(CmReq request, CmEndpoint from);

        /** The RTU arrived: the connection may carry traffic. */
        default void onEstablished(CmConnection connection) {}

        /** The connection ended: disconnected by either side, rejected or timed out. */
        default void onClosed(CmConnection connection, String why) {}
    }

    private final ControlLoop loop;
    private final CmSender sender;
    private final CmEndpoint self;
    private final CmTimeouts timeouts;
    private final Map<Long, PassiveHandler> services = new HashMap<>();
    private final Map<Integer, CmConnection> byLocalId = new HashMap<>();
    private final Map<PeerId, CmConnection> byPeerId = new HashMap<>();
    private final Map<CmConnection, PassiveHandler> handlers = new HashMap<>();
    private final Map<CmConnection, Function<CmRep, CmDecision>> replyChecks = new HashMap<>();
    private final Counters counters = new Counters();
    private final LongAdder retransmitted = counters.counter("retransmitted");
    private final LongAdder timeouts_ = counters.counter("timeouts");
    private final LongAdder unmatched = counters.counter("unmatched");
    private final LongAdder duplicates = counters.counter("duplicates");
    private final LongAdder sendFailures = counters.counter("send_failures");
    private final LongAdder rejectsSent = counters.counter("rejects_sent");

    {
        // Every message kind's counters from the start, zero or not: a listing or a scrape shows
        // the same counters before and after the first REJ or DREQ.
        for (String kind : new String[] {"req", "rep", "mra", "rej", "rtu", "dreq", "drep"}) {
            counters.counter("sent_" + kind);
            counters.counter("received_" + kind);
        }
    }
    private int nextCommId;
    private long nextTid;

    /** A passive connection is known to the peer by its own communication ID. */
    private record PeerId(int lid, long caGuid, int commId) {}

    /**
     * @param firstCommId the first local communication ID (random in production, fixed in tests)
     */
    public CmAgent(ControlLoop loop, CmSender sender, CmEndpoint self, CmTimeouts timeouts, int firstCommId) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.self = Objects.requireNonNull(self, "self");
        this.timeouts = Objects.requireNonNull(timeouts, "timeouts");
        this.nextCommId = firstCommId == 0 ? 1 : firstCommId;
        this.nextTid = (long) self.lid() << 48;
    }

    /** Sent/received messages by kind, retransmissions, timeouts, unmatched and duplicate messages. */
    public Map<String, Long> counters() {
        return counters.snapshot();
    }

    // ---- the consumers' side ---------------------------------------------------------------------------

    /** Answers REQs for {@code serviceId}; refuses a second listener for the same service. */
    public void listen(long serviceId, PassiveHandler handler) {
        loop.run(() -> {
            if (services.putIfAbsent(serviceId, Objects.requireNonNull(handler, "handler")) != null) {
                throw new IllegalStateException("service ID 0x" + Long.toHexString(serviceId) + " has a listener already");
            }
        }, 10, TimeUnit.SECONDS);
    }

    /** REQs for {@code serviceId} are rejected from now on (Invalid Service ID). */
    public void stopListening(long serviceId) {
        loop.run(() -> services.remove(serviceId), 10, TimeUnit.SECONDS);
    }

    /**
     * Sends a REQ and completes when the connection is established: after {@code onReply} accepted
     * the peer's REP (the consumer moves its QP to RTR and RTS there) and the RTU went out.
     * Completes exceptionally with {@link CmException} when the peer rejects or never answers.
     */
    public CompletionStage<CmConnection> connect(CmEndpoint peer, ConnectRequest request,
                                                 Function<CmRep, CmDecision> onReply) {
        CompletableFuture<CmConnection> result = new CompletableFuture<>();
        loop.execute(() -> {
            CmConnection c = new CmConnection(true, commId(), peer, request.serviceId(), CmConnection.State.REQ_SENT);
            c.localQpn = request.localQpn();
            c.peerResponseTimeout = timeouts.responseTimeout();
            byLocalId.put(c.localCommId, c);
            replyChecks.put(c, onReply);
            c.established.whenComplete((ok, failure) -> {
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(ok);
                }
            });
            CmReq req = new CmReq(c.localCommId, request.serviceId(), self.caGuid(), 0, request.localQpn(), 0, 0, 0, 0,
                    timeouts.responseTimeout(), CmReq.RC, false, request.startingPsn(), timeouts.responseTimeout(), 7,
                    request.partitionKey(), request.pathMtu(), false, 7, timeouts.maxRetries(), request.srq(), 0,
                    request.primary(), null, false, request.privateData());
            sendReliably(c, req);
        });
        return result;
    }

    /** Sends a DREQ for an established connection; the connection closes when the DREP comes or the retries end. */
    public void disconnect(CmConnection connection) {
        loop.execute(() -> {
            if (connection.state == CmConnection.State.ESTABLISHED) {
                connection.state = CmConnection.State.DREQ_SENT;
                connection.peerResponseTimeout = timeouts.responseTimeout();
                sendReliably(connection, new CmDreq(connection.localCommId, connection.remoteCommId,
                        connection.remoteQpn, CmPrivateData.empty()));
            }
        });
    }

    /** The connections the agent tracks, for listings. */
    public List<CmConnection> connections() {
        return loop.call(() -> new ArrayList<>(byLocalId.values()), 10, TimeUnit.SECONDS);
    }

    /** Hands over a MAD that arrived on QP1 with the CM class; any thread. */
    public void receive(CmEndpoint from, CmMad mad) {
        loop.execute(() -> handle(from, mad));
    }

    /** Forgets every connection (their timers with them); pending connects fail. */
    @Override
    public void close() {
        loop.execute(() -> {
            for (CmConnection c : new ArrayList<>(byLocalId.values())) {
                end(c, "the CM agent closed", CmRej.NO_RESOURCES);
            }
        });
    }

    // ---- receiving -------------------------------------------------------------------------------------

    private void handle(CmEndpoint from, CmMad mad) {
        CmMessage m = mad.message();
        counters.counter("received_" + kind(m)).increment();
        switch (m) {
            case CmReq req -> onReq(from, mad, req);
            case CmRep rep -> onRep(from, rep);
            case CmRtu rtu -> onRtu(rtu);
            case CmRej rej -> onRej(rej);
            case CmMra mra -> onMra(mra);
            case CmDreq dreq -> onDreq(from, dreq);
            case CmDrep drep -> onDrep(drep);
        }
    }

    private void onReq(CmEndpoint from, CmMad mad, CmReq req) {
        PeerId id = new PeerId(from.lid(), req.localCaGuid(), req.localCommId());
        CmConnection known = byPeerId.get(id);
        if (known != null) {
            duplicates.increment();
            if (known.state == CmConnection.State.REP_SENT) {
                resend(known); // our REP was lost: the REQ came again
            }
            return;
        }
        if (req.transportServiceType() != CmReq.RC) {
            reject(from, 0, req.localCommId(), CmRej.REJECTED_REQ, CmRej.INVALID_TRANSPORT_TYPE);
            return;
        }
        PassiveHandler handler = services.get(req.serviceId());
        if (handler == null) {
            reject(from, 0, req.localCommId(), CmRej.REJECTED_REQ, CmRej.INVALID_SERVICE_ID);
            return;
        }
        CmDecision decision = handler.onRequest(req, from);
        if (decision instanceof CmDecision.Accept accept) {
            CmConnection c = new CmConnection(false, commId(), from, req.serviceId(), CmConnection.State.REP_SENT);
            c.remoteCommId = req.localCommId();
            c.remoteQpn = req.localQpn();
            c.remoteStartingPsn = req.startingPsn();
            c.localQpn = accept.localQpn();
            c.peerPrivateData = req.privateData();
            c.peerResponseTimeout = req.localCmResponseTimeout();
            byLocalId.put(c.localCommId, c);
            byPeerId.put(id, c);
            handlers.put(c, handler);
            sendReliably(c, new CmRep(c.localCommId, c.remoteCommId, 0, accept.localQpn(), 0, accept.startingPsn(), 0, 0,
                    timeouts.packetLifeTime(), 0, false, req.rnrRetryCount(), true, self.caGuid(), accept.privateData()));
        } else {
            int reason = decision instanceof CmDecision.Reject r ? r.reason() : CmRej.CONSUMER_DEFINED;
            reject(from, 0, req.localCommId(), CmRej.REJECTED_REQ, reason);
        }
    }

    private void onRep(CmEndpoint from, CmRep rep) {
        CmConnection c = byLocalId.get(rep.remoteCommId());
        if (c == null || !c.active) {
            unmatched.increment();
            reject(from, 0, rep.localCommId(), CmRej.REJECTED_REP, CmRej.INVALID_COMM_ID);
            return;
        }
        if (c.state == CmConnection.State.ESTABLISHED && rep.localCommId() == c.remoteCommId) {
            duplicates.increment(); // our RTU was lost: send it again (IBA 12.9.5.2)
            send(c.peer, new CmRtu(c.localCommId, c.remoteCommId, CmPrivateData.empty()));
            return;
        }
        if (c.state != CmConnection.State.REQ_SENT && c.state != CmConnection.State.MRA_RECEIVED) {
            duplicates.increment();
            return;
        }
        c.timer.cancel();
        c.remoteCommId = rep.localCommId();
        c.remoteQpn = rep.localQpn();
        c.remoteStartingPsn = rep.startingPsn();
        c.peerPrivateData = rep.privateData();
        CmDecision decision = replyChecks.remove(c).apply(rep);
        if (decision instanceof CmDecision.Ready ready) {
            send(c.peer, new CmRtu(c.localCommId, c.remoteCommId, ready.privateData()));
            c.state = CmConnection.State.ESTABLISHED;
            c.established.complete(c);
        } else {
            int reason = decision instanceof CmDecision.Reject r ? r.reason() : CmRej.CONSUMER_DEFINED;
            reject(c.peer, c.localCommId, c.remoteCommId, CmRej.REJECTED_REP, reason);
            end(c, "the REP was refused locally (reason " + reason + ")", reason);
        }
    }

    private void onRtu(CmRtu rtu) {
        CmConnection c = byLocalId.get(rtu.remoteCommId());
        if (c == null || c.active || c.state != CmConnection.State.REP_SENT) {
            (c == null ? unmatched : duplicates).increment();
            return;
        }
        c.timer.cancel();
        c.state = CmConnection.State.ESTABLISHED;
        c.established.complete(c);
        handlers.get(c).onEstablished(c);
    }

    private void onRej(CmRej rej) {
        CmConnection c = byLocalId.get(rej.remoteCommId());
        if (c == null) {
            unmatched.increment();
            return;
        }
        end(c, "rejected by the peer, reason " + rej.reason(), rej.reason());
    }

    private void onMra(CmMra mra) {
        CmConnection c = byLocalId.get(mra.remoteCommId());
        boolean waitsForIt = c != null && ((c.active && c.state == CmConnection.State.REQ_SENT && mra.messageMraed() == 0)
                || (!c.active && c.state == CmConnection.State.REP_SENT && mra.messageMraed() == 1));
        if (!waitsForIt) {
            (c == null ? unmatched : duplicates).increment();
            return;
        }
        c.timer.cancel();
        if (c.active) {
            c.state = CmConnection.State.MRA_RECEIVED;
        }
        c.sends = Integer.MAX_VALUE; // no retransmission once acknowledged: the next timeout ends the wait
        long wait = CmTimeouts.millis(mra.serviceTimeout()) + timeouts.answerWaitMillis(c.peerResponseTimeout);
        c.timer = loop.schedule(() -> timedOut(c), wait, TimeUnit.MILLISECONDS);
    }

    private void onDreq(CmEndpoint from, CmDreq dreq) {
        CmConnection c = byLocalId.get(dreq.remoteCommId());
        send(from, new CmDrep(dreq.remoteCommId(), dreq.localCommId(), CmPrivateData.empty()));
        if (c == null) {
            unmatched.increment(); // answered anyway: the peer's DREQ retries end (IBA 12.9.7)
            return;
        }
        if (c.state == CmConnection.State.ESTABLISHED || c.state == CmConnection.State.DREQ_SENT) {
            timeWait(c, "disconnected by the peer");
        }
    }

    private void onDrep(CmDrep drep) {
        CmConnection c = byLocalId.get(drep.remoteCommId());
        if (c == null || c.state != CmConnection.State.DREQ_SENT) {
            (c == null ? unmatched : duplicates).increment();
            return;
        }
        timeWait(c, "disconnected");
    }

    // ---- sending, timers, endings ----------------------------------------------------------------------

    private void sendReliably(CmConnection c, CmMessage m) {
        c.lastSent = new CmMad(nextTid++, m);
        c.sends = 0;
        resend(c);
    }

    private void resend(CmConnection c) {
        c.timer.cancel();
        if (c.sends++ > 0) {
            retransmitted.increment();
        }
        send(c.peer, c.lastSent);
        c.timer = loop.schedule(() -> timedOut(c), timeouts.answerWaitMillis(c.peerResponseTimeout),
                TimeUnit.MILLISECONDS);
    }

    private void timedOut(CmConnection c) {
        if (c.sends <= timeouts.maxRetries()) {
            resend(c);
            return;
        }
        timeouts_.increment();
        if (c.state == CmConnection.State.DREQ_SENT) {
            timeWait(c, "no DREP after " + (timeouts.maxRetries() + 1) + " DREQs");
            return;
        }
        reject(c.peer, c.localCommId, c.remoteCommId, c.active ? CmRej.REJECTED_REQ : CmRej.REJECTED_REP, CmRej.TIMEOUT);
        end(c, "no " + (c.active ? "REP" : "RTU") + " from LID " + c.peer.lid() + " after "
                + Math.min(c.sends, timeouts.maxRetries() + 1) + " " + (c.active ? "REQs" : "REPs"), CmRej.TIMEOUT);
    }

    private void timeWait(CmConnection c, String why) {
        c.timer.cancel();
        c.state = CmConnection.State.TIME_WAIT;
        notifyClosed(c, why);
        c.timer = loop.schedule(() -> forget(c), timeouts.timeWaitMillis(), TimeUnit.MILLISECONDS);
    }

    private void end(CmConnection c, String why, int reason) {
        c.timer.cancel();
        c.established.completeExceptionally(new CmException(c + ": " + why, reason));
        notifyClosed(c, why);
        forget(c);
    }

    private void notifyClosed(CmConnection c, String why) {
        boolean wasOpen = c.state != CmConnection.State.CLOSED && !c.closed.isDone();
        if (c.state != CmConnection.State.TIME_WAIT) {
            c.state = CmConnection.State.CLOSED;
        }
        if (wasOpen) {
            c.closed.complete(c);
            PassiveHandler h = handlers.get(c);
            if (h != null) {
                h.onClosed(c, why);
            }
        }
    }

    private void forget(CmConnection c) {
        c.state = CmConnection.State.CLOSED;
        byLocalId.remove(c.localCommId, c);
        byPeerId.values().remove(c);
        handlers.remove(c);
        replyChecks.remove(c);
    }

    private void reject(CmEndpoint to, int localCommId, int remoteCommId, int rejected, int reason) {
        rejectsSent.increment();
        send(to, new CmRej(localCommId, remoteCommId, rejected, reason, new byte[0], CmPrivateData.empty()));
    }

    private void send(CmEndpoint to, CmMessage m) {
        send(to, new CmMad(nextTid++, m));
    }

    private void send(CmEndpoint to, CmMad mad) {
        counters.counter("sent_" + kind(mad.message())).increment();
        try {
            sender.send(to, mad);
        } catch (RuntimeException e) {
            sendFailures.increment(); // lost like a dropped datagram: the timers retry
        }
    }

    private int commId() {
        int id;
        do {
            id = nextCommId++;
        } while (id == 0 || byLocalId.containsKey(id));
        return id;
    }

    private static String kind(CmMessage m) {
        return m.getClass().getSimpleName().substring(2).toLowerCase(java.util.Locale.ROOT);
    }
}
