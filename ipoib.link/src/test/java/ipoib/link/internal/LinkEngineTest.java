package ipoib.link.internal;

import ipoib.verbs.loopback.fabric.FaultKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.QKey;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.runtime.ManualControlLoop;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import ipoib.verbs.loopback.fabric.SaFaults;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The link engine without a framework ({@link LinkFixture}): coming up, join timeouts and
 * backoff on the loop's clock, paths shared, refreshed and reaped, an allocation-free send.
 */
class LinkEngineTest {
    final LinkFixture fixture = new LinkFixture();
    final LoopbackSubnet subnet = fixture.subnet;
    final ManualControlLoop loop = fixture.loop;
    final List<String> log = fixture.log;
    final List<LinkListener.Change> changes = fixture.changes;
    LinkEngine a;
    LinkEngine b;

    @AfterEach
    void platformThreadsOnlyWhereATestAsks() {
        System.clearProperty(ipoib.runtime.Threads.VIRTUAL_PROPERTY);
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    void until(String what, BooleanSupplier condition) {
        fixture.until(what, condition);
    }

    LinkEngine up(String name, String device) {
        return fixture.up(name, device);
    }

    @Test
    void comesUpWithTheBroadcastGroupsParameters() {
        a = up("a", "loop0");
        assertEquals(2044, a.mtu());
        assertEquals(QKey.of(0x0b1b), a.qkey());
        assertEquals(List.of(LinkListener.Change.UP), changes);
        assertEquals(a.qpn(), a.address().qpn());
    }

    @Test
    void aLostJoinTimesOutOnTheLoopsClockAndIsRetriedWithBackoff() {
        subnet.subnetAdministrator().setFaults(SaFaults.NONE.with(FaultKind.SA_DROP, 100));
        a = fixture.engine(LinkFixture.config("a", "loop0"));
        a.providerAvailable(subnet);
        loop.runPending();
        assertEquals(LinkState.JOINING, a.state());
        loop.advance(999, TimeUnit.MILLISECONDS);
        assertEquals("joining the broadcast group", a.stateReason(), "not timed out before the join timeout");
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertEquals("broadcast join failed (attempt 1): no answer within 1000 ms; retrying in 1.0 s", a.stateReason());
        loop.advance(1000 + 1000, TimeUnit.MILLISECONDS); // the backoff, then the second attempt's timeout
        assertEquals("broadcast join failed (attempt 2): no answer within 1000 ms; retrying in 2.0 s", a.stateReason());
        loop.advance(2000 + 1000, TimeUnit.MILLISECONDS);
        assertEquals("broadcast join failed (attempt 3): no answer within 1000 ms; retrying in 4.0 s", a.stateReason());

        subnet.subnetAdministrator().setFaults(SaFaults.NONE);
        loop.advance(4000, TimeUnit.MILLISECONDS);
        until("a UP once the SA answers", () -> a.state() == LinkState.UP);
        // One warning per 5 s: attempt 1 at 1 s, attempt 2 (3 s) suppressed, attempt 3 at 7 s says so.
        assertEquals(List.of("WARN a: broadcast join failed (attempt 1): no answer within 1000 ms; retrying in 1.0 s",
                        "WARN a: broadcast join failed (attempt 3): no answer within 1000 ms; retrying in 4.0 s"
                                + " (1 similar messages suppressed)"),
                log.stream().filter(l -> l.startsWith("WARN")).toList());
    }

    @Test
    void pathsAreSharedSentOnAndRefreshedWhenTheSubnetManagerChanges() throws Exception {
        a = up("a", "loop0");
        b = up("b", "loop1");
        CompletableFuture<LinkPath> first = a.acquirePath(b.gid(), false).toCompletableFuture();
        CompletableFuture<LinkPath> second = a.acquirePath(b.gid(), false).toCompletableFuture();
        until("the path", () -> first.isDone() && second.isDone());
        LinkPath path = first.get();
        assertEquals(b.port().attributes().lid(), path.record().destinationLid());
        assertEquals("1", a.pathCounters().get("path_queries").toString(), "one query for both users");
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, b.qpn(), 0x88B5, MemorySegment.ofArray(new byte[8])));

        var port = subnet.fabric().port("loop1", 1);
        int newLid = b.port().attributes().lid().value() == 0x40 ? 0x41 : 0x40;
        subnet.fabric().changeLid(port, newLid);
        subnet.fabric().smChange();
        until("a's path follows the SM change", () -> path.record().destinationLid().value() == newLid);
        // Both links join the broadcast group again before the clock moves: advanced under a join
        // in flight, it would time the join out and restart the link.
        until("both links joined again", () -> fixture.count(LinkListener.Change.MULTICAST_RESET) == 2);
        assertTrue(path.valid());
        assertTrue(second.get().valid());
        assertEquals(1L, a.pathCounters().get("path_handle_changes"));
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, b.qpn(), 0x88B5, MemorySegment.ofArray(new byte[8])));

        // The replaced handle goes once the reaper (every second on the loop's clock) sees its sends completed.
        until("the old handle is reaped", () -> {
            loop.advance(1000, TimeUnit.MILLISECONDS);
            return a.pathCounters().get("handles_awaiting_completion") == 0;
        });
        path.release();
        second.get().release();
        assertFalse(path.valid());
        assertTrue(a.paths().isEmpty());
        assertEquals(TransmitResult.DROPPED_NO_ROUTE,
                a.sendUnicast(path, b.qpn(), 0x88B5, MemorySegment.ofArray(new byte[8])));
    }

    /**
     * The unicast send path through a path reference (slot publication for the reaper included)
     * allocates nothing on the sending thread, with the loopback provider underneath.
     */
    @Test
    void unicastThroughAPathAllocatesNothing() throws Exception {
        a = up("a", "loop0");
        b = up("b", "loop1");
        CompletableFuture<LinkPath> acquired = a.acquirePath(b.gid(), false).toCompletableFuture();
        until("the path", acquired::isDone);
        LinkPath path = acquired.get();
        MemorySegment payload = MemorySegment.ofArray(new byte[64]);
        var qpn = b.qpn();
        for (int i = 0; i < 50_000; i++) { // warm-up: JIT, buffers
            a.sendUnicast(path, qpn, 0x88B5, payload);
        }
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        int sent = 0;
        for (int i = 0; i < 10_000; i++) {
            if (a.sendUnicast(path, qpn, 0x88B5, payload) == TransmitResult.SENT) {
                sent++;
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(sent > 0, "frames went out");
        // One object per send would be at least 160 000 bytes for 10 000 sends; a late JIT
        // compilation on the way can leave a few hundred bytes once (264 seen under load 20).
        assertTrue(allocated < 10_000, "bytes allocated by 10 000 sends (" + sent + " sent): " + allocated);
        path.release();
    }

    /**
     * The receive thread's work per frame (poll, own-multicast check, dispatch through the
     * read-only frame view, re-post) allocates nothing: measured on the receiving link's
     * {@code ipoib-rx} thread while it takes 10 000 frames.
     */
    @Test
    void receivingAllocatesNothingPerFrame() throws Exception {
        // ThreadMXBean counts the allocations of platform threads only.
        System.setProperty(ipoib.runtime.Threads.VIRTUAL_PROPERTY, "false");
        java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
        fixture.handlers = new ipoib.api.link.FrameHandler[] {(link, frame) -> {
            if (link.name().equals("b")) {
                received.lazySet(received.get() + 1);
            }
        }};
        a = up("a", "loop0");
        b = up("b", "loop1");
        CompletableFuture<LinkPath> acquired = a.acquirePath(b.gid(), false).toCompletableFuture();
        until("the path", acquired::isDone);
        LinkPath path = acquired.get();
        MemorySegment payload = MemorySegment.ofArray(new byte[64]);
        var qpn = b.qpn();
        Thread rx = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("ipoib-rx-b"))
                .findFirst().orElseThrow();
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sent = 0;
        for (int round = 0; round < 6; round++) { // five rounds of warm-up (JIT), then the measured one
            long before = threads.getThreadAllocatedBytes(rx.threadId());
            long target = sent + 10_000;
            while (sent < target) {
                if (sent - received.get() < 32 && a.sendUnicast(path, qpn, 0x88B5, payload) == TransmitResult.SENT) {
                    sent++;
                } else {
                    Thread.onSpinWait();
                }
            }
            long all = sent;
            until("b received every frame", () -> received.get() == all);
            long allocated = threads.getThreadAllocatedBytes(rx.threadId()) - before;
            if (round == 5) {
                // One object per frame would be at least 160 000 bytes; a late compilation may leave a few hundred.
                assertTrue(allocated < 10_000, "bytes allocated by the receive thread for 10 000 frames: " + allocated);
            }
        }
        path.release();
    }
}
