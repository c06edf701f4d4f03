package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.PathRecord;
import ipoib.api.Rate;
import ipoib.runtime.ManualControlLoop;
import ipoib.sa.SaClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fabric, its SA and an SA client on one manual control loop: the {@code sa-delay} fault and
 * the wire tap's timestamps follow the loop's clock, so a test moves them without waiting.
 */
class SaClockTest {
    private final ManualControlLoop loop = new ManualControlLoop();
    private Fabric fabric;
    private SubnetAdministratorEmulator sa;
    private SaClient client;
    private LoopPort a;
    private LoopPort b;

    @BeforeEach
    void start() {
        FabricConfig d = FabricConfig.defaults();
        fabric = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 7), loop);
        fabric.start();
        sa = new SubnetAdministratorEmulator(fabric, loop);
        a = fabric.devices().get(0).loopPorts().get(0);
        b = fabric.devices().get(1).loopPorts().get(0);
        // One attempt of 5 s: longer than the delay, so no retransmission blurs the count.
        client = new SaClient(sa.transport(a), loop, 5_000, 1, 0);
    }

    @AfterEach
    void stop() {
        client.close();
        sa.close();
        fabric.close();
        loop.close();
    }

    @Test
    void theSaDelayFaultHoldsEachAnswerForItsDelayOnTheLoopsClock() {
        sa.setFaults(SaFaults.NONE.with(FaultKind.SA_DELAY, 250));
        CompletableFuture<PathRecord> path = client.pathRecord(a.gid(0), b.gid(0), ipoib.api.PKey.DEFAULT).toCompletableFuture();
        loop.advance(249, TimeUnit.MILLISECONDS);
        assertFalse(path.isDone(), "1 ms before the delay");
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertTrue(path.isDone());
        assertEquals(b.gid(0), path.join().destinationGid());
    }

    @Test
    void theWireTapsTimestampsFollowTheLoopsClock() {
        List<Long> stamps = new CopyOnWriteArrayList<>();
        fabric.setWireTap(new WireTap() {
            @Override
            public void packet(Packet p) {
                stamps.add(p.timeNanos());
            }
        });
        sa.setFaults(SaFaults.NONE.with(FaultKind.SA_DELAY, 250));
        CompletableFuture<PathRecord> path = client.pathRecord(a.gid(0), b.gid(0), ipoib.api.PKey.DEFAULT).toCompletableFuture();
        loop.advance(250, TimeUnit.MILLISECONDS);
        assertTrue(path.isDone());
        assertEquals(2, stamps.size(), "the request and its answer: " + stamps);
        assertEquals(TimeUnit.MILLISECONDS.toNanos(250), stamps.get(1) - stamps.get(0));
        long wallNow = System.currentTimeMillis() * 1_000_000L;
        assertTrue(Math.abs(stamps.get(0) - wallNow) < TimeUnit.MINUTES.toNanos(1),
                "a time of day, for the capture file: " + stamps.get(0) + " vs " + wallNow);
    }
}
