package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.SaException;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.ThreadControlLoop;
import ipoib.sa.SaClient;
import ipoib.runtime.ManualControlLoop;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RMPP between the emulated SA and the SA client (IBA 13.6), with the SA on a manual control loop
 * (its requests run when the test pumps the loop, its ACK timers when the test moves the clock)
 * and deterministic loss: a table of 60 MCMemberRecords is 17 segments; the client's window
 * of 4 segments makes it acknowledge segments 1, 5, 9, 13 and 17.
 */
class RmppTransferTest {
    private static final int GROUPS = 60;
    private static final int SEGMENTS = 17; // 60 x 56 octets in segments of 200
    private static final long WAIT_MILLIS = 30_000;

    private Fabric fabric;
    private ManualControlLoop saLoop;
    private SubnetAdministratorEmulator sa;
    private ThreadControlLoop clientTimers;
    private SaClient client;
    private LoopPort port;

    @BeforeEach
    void start() throws Exception {
        FabricConfig d = FabricConfig.defaults();
        fabric = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse(
                        "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;")), 7));
        fabric.start();
        saLoop = new ManualControlLoop();
        sa = new SubnetAdministratorEmulator(fabric, saLoop);
        clientTimers = new ThreadControlLoop("sa-client-timers", FailureHandler.JAVA_LOGGING);
        port = fabric.devices().get(0).loopPorts().get(0);
        // A generous request timeout: only the SA's RMPP timers are under test, on the manual clock.
        client = new SaClient(sa.transport(port), clientTimers, 20_000, 1, 1, 4);
        for (int i = 0; i < GROUPS; i++) {
            Mgid g = Mgid.parse("ff12:401b:ffff::e000:" + Integer.toHexString(0x400 + i));
            pump(client.create(new McMemberRecord(g, port.gid(0), QKey.of(0x0b1b), Lid.UNASSIGNED, IbMtu.MTU_2048, 0,
                    PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false)));
        }
    }

    @AfterEach
    void stop() {
        client.close();
        clientTimers.close();
        sa.close();
        saLoop.close();
        fabric.close();
    }

    private long saCounter(String name) {
        return sa.statistics().getOrDefault(name, -1L);
    }

    /**
     * Runs the SA's posted work until the condition holds: the client answers on its own thread,
     * so its MADs reach the SA's loop a little later. No time passes on the SA's clock.
     */
    private void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (true) {
            saLoop.runPending();
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT_MILLIS + " ms: " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000); // polling for the client's next MAD
        }
    }

    /** The stage's value once the SA's loop has run what it needs; its failure as an ExecutionException. */
    private <T> T pump(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        CompletableFuture<T> f = stage.toCompletableFuture();
        await(f::isDone, "the request completed");
        return f.get();
    }

    private static long ours(List<McMemberRecord> table) {
        return table.stream().filter(r -> r.mgid().toString().startsWith("ff12:401b:ffff::e000:4")).count();
    }

    @Test
    void aTableOfSeventeenSegmentsIsAcknowledgedWindowByWindow() throws Exception {
        List<McMemberRecord> table = pump(client.groups());
        assertEquals(GROUPS, ours(table));
        sa.sync();
        assertEquals(SEGMENTS, saCounter("RMPP segments sent"));
        assertEquals(5, saCounter("RMPP ACKs received"), "ACKs of segments 1, 5, 9, 13 and 17");
        assertEquals(0, saCounter("RMPP segments retransmitted"));
        assertEquals(1, saCounter("RMPP transfers completed"));
        Map<String, Long> stats = client.statistics();
        assertEquals(SEGMENTS, stats.get("rmpp_segments"));
        assertEquals(0, stats.get("tables_cut"));
    }

    @Test
    void aLostSegmentIsSentAgainFromTheLastAckWhenTheAckTimerFires() throws Exception {
        sa.setRmppFaults(new RmppFaults(Set.of(6), Set.of(), Set.of()));
        CompletableFuture<List<McMemberRecord>> table = client.groups().toCompletableFuture();
        // Segments 1..5 are acknowledged; 6 is lost, 7..9 follow a gap and are dropped: no ACK.
        await(() -> saCounter("RMPP segments sent") == 9, "the SA sent the third window");
        sa.sync();
        assertFalse(table.isDone(), "the client waits for segment 6");
        assertEquals(1, saCounter("RMPP segments lost (fault)"));
        assertEquals(1, saLoop.scheduled(), "the SA's ACK timer runs");

        saLoop.advance(RmppTransfers.ACK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        assertEquals(GROUPS, ours(pump(table)));
        sa.sync();
        assertEquals(4, saCounter("RMPP segments retransmitted"), "segments 6..9 again");
        assertEquals(SEGMENTS + 4, saCounter("RMPP segments sent"));
        assertEquals(1, saCounter("RMPP transfers completed"));
    }

    @Test
    void aLostFinalAckIsSentAgainWhenTheSaRepeatsItsLastWindow() throws Exception {
        sa.setRmppFaults(new RmppFaults(Set.of(), Set.of(SEGMENTS), Set.of()));
        List<McMemberRecord> table = pump(client.groups());
        assertEquals(GROUPS, ours(table), "the client has every segment");
        await(() -> saCounter("RMPP ACKs lost (fault)") == 1, "the final ACK was lost");
        sa.sync();
        assertEquals(0, saCounter("RMPP transfers completed"), "the SA still waits for the final ACK");

        saLoop.advance(RmppTransfers.ACK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        await(() -> saCounter("RMPP transfers completed") == 1, "the repeated final ACK completes the transfer");
        sa.sync();
        assertEquals(4, saCounter("RMPP segments retransmitted"), "segments 14..17 again");
        assertEquals(4, client.statistics().get("rmpp_duplicate_segments"), "each acknowledged again");
        assertEquals(0, saLoop.scheduled(), "no timer left");
    }

    @Test
    void underTheRmppLossFaultTheTableArrivesWholeThroughRetransmissions() throws Exception {
        // fabric:fault sa-rmpp-loss 20: a fifth of the segments lost, each window sent again on the
        // ACK timer until every segment got through.
        sa.setFaults(SaFaults.NONE.with(FaultKind.SA_RMPP_LOSS, 20));
        CompletableFuture<List<McMemberRecord>> table = client.groups().toCompletableFuture();
        for (int timeouts = 0; !table.isDone() && timeouts < 20; timeouts++) {
            long sent = saCounter("RMPP segments sent");
            // Quiet: the SA thread idle with its ACK timer armed, or the table complete.
            await(() -> table.isDone() || saLoop.scheduled() == 1, "the SA waits for an ACK");
            sa.sync();
            if (!table.isDone() && saCounter("RMPP segments sent") == sent) {
                saLoop.advance(RmppTransfers.ACK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
        assertEquals(GROUPS, ours(pump(table)));
        sa.sync();
        long lost = saCounter("RMPP segments lost (fault)");
        assertTrue(lost > 0, "segments lost: " + sa.statistics());
        assertTrue(saCounter("RMPP segments retransmitted") >= lost, "each lost segment sent again: " + sa.statistics());
        assertEquals(0, saCounter("RMPP transfers aborted"));
    }

    @Test
    void aTransferWithoutAcksIsAbortedAfterTheRetriesAndTheRequestFails() throws Exception {
        sa.setRmppFaults(new RmppFaults(Set.of(), Set.of(), Set.of(1)));
        CompletableFuture<List<McMemberRecord>> table = client.groups().toCompletableFuture();
        for (int retry = 1; retry <= RmppTransfers.RETRIES; retry++) {
            long sent = retry;
            await(() -> saCounter("RMPP segments sent") == sent && saLoop.scheduled() == 1,
                    "segment 1 sent " + sent + " times");
            sa.sync();
            saLoop.advance(RmppTransfers.ACK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        }
        await(() -> saCounter("RMPP segments sent") == RmppTransfers.RETRIES + 1 && saLoop.scheduled() == 1,
                "the last retry");
        sa.sync();
        assertFalse(table.isDone());
        saLoop.advance(RmppTransfers.ACK_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);

        ExecutionException e = assertThrows(ExecutionException.class, () -> pump(table));
        SaException failure = assertInstanceOf(SaException.class, e.getCause());
        assertTrue(failure.getMessage().contains("ABORT with status 126 (too many retries)"), failure.getMessage());
        sa.sync();
        assertEquals(1, saCounter("RMPP transfers aborted"));
        assertEquals(RmppTransfers.RETRIES, saCounter("RMPP segments retransmitted"));
        assertEquals(1, client.statistics().get("rmpp_aborted"));
    }
}
