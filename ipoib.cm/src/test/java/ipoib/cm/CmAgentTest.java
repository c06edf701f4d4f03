package ipoib.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.cm.CmMad;
import ipoib.codec.cm.CmMra;
import ipoib.codec.cm.CmPath;
import ipoib.codec.cm.CmPrivateData;
import ipoib.codec.cm.CmRej;
import ipoib.codec.cm.CmReq;
import ipoib.codec.cm.IpoibCm;
import ipoib.runtime.ManualControlLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Two CM agents on one manual control loop, joined by a wire that records every MAD and can lose
 * chosen ones: the exchanges of IBA 12.9 with their timeouts, retransmissions and rejections,
 * without waiting in real time.
 */
class CmAgentTest {
    private static final CmTimeouts TIMING = new CmTimeouts(14, 10, 3, 500); // 64 ms response, 4 ms lifetime
    /** 2 × packet lifetime + the peer's response time, as Linux's cm.c computes the REQ timeout. */
    private static final long WAIT_MS = 2 * CmTimeouts.millis(10) + CmTimeouts.millis(14);
    private static final CmEndpoint A = new CmEndpoint(0x12, Gid.parse("fe80::2:c903:0:1"), 0x0002c90300000001L);
    private static final CmEndpoint B = new CmEndpoint(0x34, Gid.parse("fe80::2:c903:0:2"), 0x0002c90300000002L);
    private static final int A_UD_QPN = 0x48;
    private static final int B_UD_QPN = 0x49;

    private final ManualControlLoop loop = new ManualControlLoop();
    private final List<String> wire = new ArrayList<>();
    private Predicate<CmMad> lose = m -> false;
    private CmAgent a;
    private CmAgent b;

    CmAgentTest() {
        a = new CmAgent(loop, (to, mad) -> deliver(A, to, mad), A, TIMING, 0x100);
        b = new CmAgent(loop, (to, mad) -> deliver(B, to, mad), B, TIMING, 0x200);
    }

    private void deliver(CmEndpoint from, CmEndpoint to, CmMad mad) {
        String kind = mad.message().getClass().getSimpleName().substring(2).toUpperCase();
        if (lose.test(mad)) {
            wire.add(kind + " lost");
            return;
        }
        wire.add(kind + " " + (from == A ? "A>B" : "B>A"));
        (to.equals(A) ? a : b).receive(from, mad);
    }

    private static ConnectRequest request(long serviceId) {
        CmPath path = new CmPath(A.lid(), B.lid(), A.gid(), B.gid(), 0, 3, 0, 0xff, 0, true, 18);
        return new ConnectRequest(serviceId, 0xa1, 0x000abc, 0xffff, 4, path, true,
                IpoibCm.privateData(A_UD_QPN, 65524));
    }

    /** B listens on its IPoIB service ID and accepts with RC QP 0xb7, PSN 0x123. */
    private List<CmConnection> listen() {
        List<CmConnection> established = new ArrayList<>();
        b.listen(IpoibCm.serviceId(B_UD_QPN), new CmAgent.PassiveHandler() {
            @Override
            public CmDecision onRequest(CmReq request, CmEndpoint from) {
                return CmDecision.accept(0xb7, 0x123, IpoibCm.privateData(B_UD_QPN, 65524));
            }

            @Override
            public void onEstablished(CmConnection connection) {
                established.add(connection);
            }
        });
        return established;
    }

    private CompletableFuture<CmConnection> connect(long serviceId) {
        CompletableFuture<CmConnection> f = a.connect(B, request(serviceId), rep -> CmDecision.ready()).toCompletableFuture();
        loop.runPending();
        return f;
    }

    private static int rejectReason(CompletableFuture<?> f) {
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, f::get);
        return assertInstanceOf(CmException.class, e.getCause()).rejectReason();
    }

    @Test
    void aRequestIsAnsweredAndBothSidesLearnTheOthersQueuePairAndData() throws Exception {
        List<CmConnection> passive = listen();
        CompletableFuture<CmConnection> f = connect(IpoibCm.serviceId(B_UD_QPN));
        assertEquals(List.of("REQ A>B", "REP B>A", "RTU A>B"), wire);
        CmConnection active = f.get();
        assertEquals(CmConnection.State.ESTABLISHED, active.state());
        assertEquals(0xb7, active.remoteQpn());
        assertEquals(0x123, active.remoteStartingPsn());
        assertEquals(B_UD_QPN, IpoibCm.udQpn(active.peerPrivateData()));
        assertEquals(1, passive.size());
        assertEquals(0xa1, passive.get(0).remoteQpn());
        assertEquals(0xabc, passive.get(0).remoteStartingPsn());
        assertEquals(A_UD_QPN, IpoibCm.udQpn(passive.get(0).peerPrivateData()));
        assertEquals(0, loop.scheduled(), "no timer left once established");
    }

    @Test
    void aRequestForAServiceNobodyListensOnIsRejectedWithInvalidServiceId() {
        listen();
        CompletableFuture<CmConnection> f = connect(IpoibCm.serviceId(0x77));
        assertEquals(List.of("REQ A>B", "REJ B>A"), wire);
        assertEquals(CmRej.INVALID_SERVICE_ID, rejectReason(f));
    }

    @Test
    void aLostReplyIsRecoveredByTheRequestsRetransmission() throws Exception {
        listen();
        lose = m -> m.message() instanceof ipoib.codec.cm.CmRep && wire.stream().noneMatch(w -> w.equals("REP lost"));
        CompletableFuture<CmConnection> f = connect(IpoibCm.serviceId(B_UD_QPN));
        assertFalse(f.isDone());
        loop.advance(WAIT_MS - 1, TimeUnit.MILLISECONDS);
        assertEquals(List.of("REQ A>B", "REP lost"), wire, "nothing is resent before the timeout");
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(List.of("REQ A>B", "REP lost", "REQ A>B", "REP B>A", "RTU A>B"), wire);
        assertEquals(CmConnection.State.ESTABLISHED, f.get().state());
        assertEquals(1L, a.counters().get("retransmitted"));
        assertEquals(1L, b.counters().get("duplicates"));
    }

    @Test
    void aSilentPeerFailsTheRequestAfterTheRetriesWithTimeout() {
        lose = m -> true;
        CompletableFuture<CmConnection> f = connect(IpoibCm.serviceId(B_UD_QPN));
        loop.advance(WAIT_MS * (TIMING.maxRetries() + 1) - 1, TimeUnit.MILLISECONDS);
        assertFalse(f.isDone());
        loop.advance(1, TimeUnit.MILLISECONDS);
        // maxRetries + 1 REQs, then a REJ with reason Timeout (IBA 12.9.5.1)
        assertEquals(List.of("REQ lost", "REQ lost", "REQ lost", "REQ lost", "REJ lost"), wire);
        assertEquals(CmRej.TIMEOUT, rejectReason(f));
        assertTrue(a.connections().isEmpty());
    }

    @Test
    void aLostRtuMakesThePassiveSideResendItsReplyAndTheActiveSideItsRtu() throws Exception {
        List<CmConnection> passive = listen();
        lose = m -> m.message() instanceof ipoib.codec.cm.CmRtu && wire.stream().noneMatch(w -> w.equals("RTU lost"));
        CompletableFuture<CmConnection> f = connect(IpoibCm.serviceId(B_UD_QPN));
        assertTrue(f.isDone(), "the active side is established once it sent the RTU");
        assertTrue(passive.isEmpty());
        loop.advance(WAIT_MS, TimeUnit.MILLISECONDS);
        assertEquals(List.of("REQ A>B", "REP B>A", "RTU lost", "REP B>A", "RTU A>B"), wire);
        assertEquals(1, passive.size());
        assertEquals(CmConnection.State.ESTABLISHED, passive.get(0).state());
    }

    @Test
    void aConsumerRefusalReachesTheActiveSideWithItsReason() {
        b.listen(IpoibCm.serviceId(B_UD_QPN), (request, from) -> CmDecision.reject(CmRej.NO_QP));
        assertEquals(CmRej.NO_QP, rejectReason(connect(IpoibCm.serviceId(B_UD_QPN))));
        assertEquals(List.of("REQ A>B", "REJ B>A"), wire);
    }

    @Test
    void aReplyTheActiveConsumerRefusesIsRejectedAndThePassiveSideCloses() {
        List<String> closed = new ArrayList<>();
        b.listen(IpoibCm.serviceId(B_UD_QPN), new CmAgent.PassiveHandler() {
            @Override
            public CmDecision onRequest(CmReq request, CmEndpoint from) {
                return CmDecision.accept(0xb7, 0x123, CmPrivateData.of(new byte[] {0, 0, 0, 0x49, 0, 0, 0, 4}));
            }

            @Override
            public void onClosed(CmConnection connection, String why) {
                closed.add(why);
            }
        });
        // Linux's ipoib_cm_rep_handler refuses a REP whose MTU is not above the 4-octet IPoIB header.
        CompletableFuture<CmConnection> f = a.connect(B, request(IpoibCm.serviceId(B_UD_QPN)),
                rep -> CmDecision.reject(CmRej.CONSUMER_DEFINED)).toCompletableFuture();
        loop.runPending();
        assertEquals(List.of("REQ A>B", "REP B>A", "REJ A>B"), wire);
        assertEquals(CmRej.CONSUMER_DEFINED, rejectReason(f));
        assertEquals(List.of("rejected by the peer, reason 28"), closed);
        assertTrue(b.connections().isEmpty());
    }

    @Test
    void disconnectionExchangesDreqAndDrepAndTheIdsWaitBeforeTheyAreForgotten() throws Exception {
        List<CmConnection> passive = listen();
        CmConnection active = connect(IpoibCm.serviceId(B_UD_QPN)).get();
        a.disconnect(active);
        loop.runPending();
        assertEquals(List.of("REQ A>B", "REP B>A", "RTU A>B", "DREQ A>B", "DREP B>A"), wire);
        assertEquals(CmConnection.State.TIME_WAIT, active.state());
        assertEquals(CmConnection.State.TIME_WAIT, passive.get(0).state());
        assertTrue(active.whenClosed().isDone());
        loop.advance(TIMING.timeWaitMillis(), TimeUnit.MILLISECONDS);
        assertTrue(a.connections().isEmpty());
        assertTrue(b.connections().isEmpty());
    }

    @Test
    void anUnansweredDisconnectEndsInTimeWaitAfterTheRetries() throws Exception {
        listen();
        CmConnection active = connect(IpoibCm.serviceId(B_UD_QPN)).get();
        lose = m -> true;
        a.disconnect(active);
        loop.advance(WAIT_MS * (TIMING.maxRetries() + 1), TimeUnit.MILLISECONDS);
        assertEquals(4, wire.stream().filter("DREQ lost"::equals).count());
        assertEquals(CmConnection.State.TIME_WAIT, active.state());
    }

    @Test
    void anMraStopsTheRetransmissionsAndExtendsTheWaitByItsServiceTimeout() {
        lose = m -> true;
        CompletableFuture<CmConnection> f = connect(IpoibCm.serviceId(B_UD_QPN));
        int activeId = a.connections().get(0).localCommId();
        a.receive(B, new CmMad(9, new CmMra(0x999, activeId, 0, 16, CmPrivateData.empty())));
        loop.runPending();
        long extended = CmTimeouts.millis(16) + WAIT_MS; // 256 ms service time + the usual wait
        loop.advance(extended - 1, TimeUnit.MILLISECONDS);
        assertEquals(List.of("REQ lost"), wire, "no REQ is resent after the MRA");
        assertFalse(f.isDone());
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(CmRej.TIMEOUT, rejectReason(f));
    }

    @Test
    void aSecondListenerForTheSameServiceIsRefused() {
        listen();
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> b.listen(IpoibCm.serviceId(B_UD_QPN), (r, f) -> CmDecision.reject(CmRej.NO_QP)));
        assertEquals("service ID 0x1000000000000049 has a listener already", e.getMessage());
    }

    /** Every counter from the start, zero or not (IBA 12.6's message kinds each way, REJs sent), as the listings promise. */
    @Test
    void everyCounterIsThereBeforeItsFirstEvent() {
        java.util.Map<String, Long> counters = a.counters();
        for (String kind : new String[] {"req", "rep", "mra", "rej", "rtu", "dreq", "drep"}) {
            assertEquals(0L, counters.get("sent_" + kind), "sent_" + kind + " in " + counters);
            assertEquals(0L, counters.get("received_" + kind), "received_" + kind + " in " + counters);
        }
        assertEquals(0L, counters.get("rejects_sent"), counters.toString());
    }
}
