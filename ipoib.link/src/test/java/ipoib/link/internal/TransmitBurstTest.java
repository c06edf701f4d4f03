package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Qpn;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.runtime.ManualControlLoop;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transmit bursts ({@link IpoibLink#beginBurst()}): a thread's frames wait in their send buffers
 * until the burst is posted as one list, arrive in order, and other threads are not held back;
 * the receive side re-posts its buffers in lists and keeps up. Two links on the loopback fabric.
 */
class TransmitBurstTest {
    private static final int ETHERTYPE = 0x88B5;
    private final LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5);
    private final ManualControlLoop loop = new ManualControlLoop();
    private final List<Integer> received = new CopyOnWriteArrayList<>();
    private final AtomicLong count = new AtomicLong();
    private final AtomicBoolean record = new AtomicBoolean(true);
    /** The frame number at which the handler waits for {@link #gate} (-1: none), and whether it waits. */
    private volatile int holdAt = -1;
    private volatile java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(0);
    private final AtomicBoolean holding = new AtomicBoolean();
    private final FrameHandler handler = (link, frame) -> {
        int n = frame.buffer().get(ValueLayout.JAVA_INT_UNALIGNED, frame.payloadOffset());
        if (record.get()) {
            received.add(n);
        }
        if (n == holdAt) {
            holding.set(true);
            try {
                gate.await(20, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            holding.set(false);
        }
        count.incrementAndGet();
    };
    private LinkEngine a;
    private LinkEngine b;
    private LinkPath path;
    private Qpn qpn;

    private LinkHooks hooks(FrameHandler h) {
        // Made once, as the component's whiteboard does: a new array per frame would be the
        // fake's allocation, which the JIT removes only when it inlines the dispatch.
        FrameHandler[] some = h != null ? new FrameHandler[] {h} : new FrameHandler[0];
        FrameHandler[] none = new FrameHandler[0];
        return new LinkHooks() {
            @Override public FrameHandler[] handlers(int etherType) {
                return etherType == ETHERTYPE ? some : none;
            }
            @Override public void notifyListeners(IpoibLink link, LinkListener.Change change) { }
            @Override public void postEvent(String topic, Map<String, Object> properties) { }
            @Override public void info(String message) { }
            @Override public void warn(String message, Throwable cause) { }
            @Override public void error(String message, Throwable cause) { }
        };
    }

    private void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            loop.runPending();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    @BeforeEach
    void up() throws Exception {
        // The receive threads as platform threads: the tests watch b's by name and count its
        // allocations with ThreadMXBean, which sees platform threads only.
        System.setProperty(ipoib.runtime.Threads.VIRTUAL_PROPERTY, "false");
        a = new LinkEngine(LinkFixture.config("a", "loop0"), hooks(null), loop);
        b = new LinkEngine(LinkFixture.config("b", "loop1"), hooks(handler), loop);
        a.providerAvailable(subnet);
        b.providerAvailable(subnet);
        until("both UP", () -> a.state() == LinkState.UP && b.state() == LinkState.UP);
        CompletableFuture<LinkPath> acquired = a.acquirePath(b.gid(), false).toCompletableFuture();
        until("the path", acquired::isDone);
        path = acquired.get();
        qpn = b.qpn();
    }

    @AfterEach
    void close() {
        if (path != null) {
            path.release();
        }
        a.close();
        b.close();
        subnet.close();
        System.clearProperty(ipoib.runtime.Threads.VIRTUAL_PROPERTY);
    }

    private static MemorySegment frame(int n) {
        MemorySegment payload = MemorySegment.ofArray(new byte[64]);
        payload.set(ValueLayout.JAVA_INT_UNALIGNED, 0, n);
        return payload;
    }

    @Test
    void aBurstIsHeldUntilItEndsAndArrivesInOrder() {
        assertTrue(a.beginBurst());
        for (int i = 0; i < 10; i++) {
            assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(i)));
        }
        assertFalse(a.beginBurst(), "a nested burst joins the open one");
        // The loopback delivers on the sender's thread as it posts: nothing arrived yet.
        assertEquals(0, count.get(), "frames of an open burst are not posted");
        assertEquals(0, a.counters().txPackets());
        a.endBurst();
        until("ten frames", () -> count.get() == 10);
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), received);
        assertEquals(10, a.counters().txPackets());
        assertEquals(640, a.counters().txBytes());
        a.endBurst(); // no burst open: nothing happens
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(10)));
        until("the eleventh, posted at once", () -> count.get() == 11);
    }

    @Test
    void aBurstTakesItsSendBuffersSixteenAtATimeAndGivesBackThoseItDidNotUse() {
        LinkResources r = a.status().upResources();
        assertEquals(0, r.stuckSends(-1), "every send buffer free");
        assertTrue(a.beginBurst());
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(1)));
        assertEquals(UdSender.STASH, r.stuckSends(-1), "one frame queued, 15 more buffers taken with it");
        for (int i = 2; i <= UdSender.STASH + 1; i++) {
            assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(i)));
        }
        assertEquals(2 * UdSender.STASH, r.stuckSends(-1), "the 17th frame took the next sixteen");
        a.endBurst();
        until("17 frames", () -> count.get() == UdSender.STASH + 1);
        assertEquals(0, r.stuckSends(-1), "the sent ones completed, the unused ones came back");
        assertEquals(UdSender.STASH + 1, a.counters().txPackets());
        assertEquals((UdSender.STASH + 1) * 64L, a.counters().txBytes());
    }

    @Test
    void theWatchdogCountsOnlyBuffersOutstandingLongerThanTheTimeout() {
        LinkResources r = a.status().upResources();
        long timeout = 1_000_000_000L;
        java.util.concurrent.TimeUnit ns = java.util.concurrent.TimeUnit.NANOSECONDS;
        // Long after the buffers' last use (never, here): a stale stamp would read as stuck.
        loop.clock().advance(5 * timeout, ns);
        r.stuckSends(timeout); // a look: buffers taken from now on carry its number
        assertTrue(a.beginBurst());
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(1)));
        // The open burst holds sixteen buffers, not posted: like a send that does not complete.
        loop.clock().advance(timeout, ns);
        assertEquals(0, r.stuckSends(timeout), "taken after the last look: perhaps just now");
        loop.clock().advance(timeout, ns);
        assertEquals(0, r.stuckSends(timeout), "out since the look before for the timeout, not longer");
        loop.clock().advance(1, ns);
        assertEquals(UdSender.STASH, r.stuckSends(timeout), "out for longer than the timeout");
        a.endBurst();
        until("the frame", () -> count.get() == 1);
        assertEquals(0, r.stuckSends(timeout));
    }

    /**
     * Steady traffic with looks a little more than a timeout apart (a scheduler is never exact):
     * the buffers out at the moment of a look (here the stash of an open burst) were taken after
     * the look before and are not reported.
     */
    @Test
    void buffersOutAtTheMomentOfEachLookAreNotStuck() {
        LinkResources r = a.status().upResources();
        long timeout = 1_000_000_000L;
        for (int round = 1; round <= 4; round++) {
            loop.clock().advance(timeout + 1_000_000, java.util.concurrent.TimeUnit.NANOSECONDS);
            assertTrue(a.beginBurst());
            assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(round)));
            assertEquals(0, r.stuckSends(timeout), "round " + round);
            a.endBurst();
            int frames = round;
            until("frame " + round, () -> count.get() == frames);
        }
    }

    @Test
    void consumedReceiveBuffersGoBackOnceTheQueueRunsDryEvenBelowTheBatch() {
        // Five frames one at a time: each poll consumes one buffer, fewer than the re-post batch
        // (an eighth of the 64-deep queue), so only running dry sends them back.
        for (int i = 0; i < 5; i++) {
            assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(i)));
            long expected = i + 1;
            until("frame " + i, () -> count.get() == expected);
        }
        until("b's receive thread waiting", () -> Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("ipoib-rx-b") && t.getState() == Thread.State.TIMED_WAITING));
        // The whole queue is posted again: a burst as deep as the queue fits without a drop.
        assertTrue(a.beginBurst());
        for (int i = 0; i < 64; i++) {
            assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(i)));
        }
        a.endBurst();
        var counters = subnet.fabric().counters();
        var noBuffer = ipoib.verbs.loopback.fabric.DropReason.NO_RECEIVE_BUFFER;
        until("the burst delivered or dropped", () -> count.get() + counters.drops(noBuffer) == 5 + 64);
        assertEquals(0, counters.drops(noBuffer), "a buffer was still waiting to be re-posted");
    }

    /**
     * A poll that takes many completions gives their buffers back as it goes (an eighth of the
     * queue at a time), not when it ends: held at frame 40 of a 47-frame poll, the receiver has
     * the buffers of frames 0..39 posted again, and a 50-frame burst into the 64-deep queue
     * drops nothing (it would drop 34 if they waited for the end of the poll).
     */
    @Test
    void aLongPollGivesItsBuffersBackAsItGoes() {
        record.set(false);
        var first = new java.util.concurrent.CountDownLatch(1);
        var second = new java.util.concurrent.CountDownLatch(1);
        gate = first;
        holdAt = 0;
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, qpn, ETHERTYPE, frame(0)));
        until("b's receive thread holding frame 0", holding::get);
        assertTrue(a.beginBurst());
        for (int i = 1; i <= 47; i++) {
            a.sendUnicast(path, qpn, ETHERTYPE, frame(i));
        }
        a.endBurst();
        gate = second;
        holdAt = 40;
        first.countDown();
        until("b's receive thread holding frame 40", () -> holding.get() && count.get() == 40);
        assertTrue(a.beginBurst());
        for (int i = 100; i < 150; i++) {
            a.sendUnicast(path, qpn, ETHERTYPE, frame(i));
        }
        a.endBurst();
        second.countDown();
        var counters = subnet.fabric().counters();
        var noBuffer = ipoib.verbs.loopback.fabric.DropReason.NO_RECEIVE_BUFFER;
        until("every frame delivered or dropped", () -> count.get() + counters.drops(noBuffer) == 48 + 50);
        assertEquals(0, counters.drops(noBuffer), "buffers of a poll still waiting to be re-posted");
    }

    @Test
    void aLongBurstIsPostedInListsAsItGoes() {
        assertTrue(a.beginBurst());
        for (int i = 0; i < UdSender.BURST; i++) {
            a.sendUnicast(path, qpn, ETHERTYPE, frame(i));
        }
        until("the first full list", () -> count.get() == UdSender.BURST);
        a.sendUnicast(path, qpn, ETHERTYPE, frame(UdSender.BURST));
        assertEquals(UdSender.BURST, count.get());
        a.endBurst();
        until("the rest", () -> count.get() == UdSender.BURST + 1);
        for (int i = 0; i <= UdSender.BURST; i++) {
            assertEquals(i, received.get(i));
        }
    }

    @Test
    void anotherThreadIsNotHeldBackAndCannotOpenASecondBurst() throws Exception {
        assertTrue(a.beginBurst());
        assertTrue(a.sendUnicast(path, qpn, ETHERTYPE, frame(1)) == TransmitResult.SENT);
        boolean[] secondBurst = new boolean[1];
        Thread other = new Thread(() -> {
            secondBurst[0] = a.beginBurst();
            a.sendUnicast(path, qpn, ETHERTYPE, frame(2));
            a.endBurst();
        });
        other.start();
        other.join(10_000);
        assertFalse(secondBurst[0], "one burst per link at a time");
        until("the other thread's frame", () -> count.get() == 1);
        assertEquals(List.of(2), received);
        a.endBurst();
        until("the burst's frame", () -> count.get() == 2);
        assertEquals(List.of(2, 1), received);
    }

    @Test
    void burstsAndTheReceiveSideAllocateNothing() {
        record.set(false);
        MemorySegment payload = frame(0);
        long patience = Duration.ofSeconds(20).toNanos();
        Runnable round = () -> {
            long target = count.get() + 16;
            a.beginBurst();
            for (int k = 0; k < 16; k++) {
                a.sendUnicast(path, qpn, ETHERTYPE, payload);
            }
            a.endBurst();
            long deadline = System.nanoTime() + patience;
            while (count.get() < target && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        };
        for (int i = 0; i < 3_000; i++) {
            round.run();
        }
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long receiver = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("ipoib-rx-b"))
                .findFirst().orElseThrow().threadId();
        long before = threads.getCurrentThreadAllocatedBytes();
        long receiverBefore = threads.getThreadAllocatedBytes(receiver);
        long delivered = count.get();
        for (int i = 0; i < 1_000; i++) {
            round.run();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        long receiverAllocated = threads.getThreadAllocatedBytes(receiver) - receiverBefore;
        assertEquals(delivered + 16_000, count.get(), "every frame of every burst arrived");
        assertTrue(allocated < 10_000, "bytes allocated by 1 000 bursts of 16: " + allocated);
        assertTrue(receiverAllocated < 10_000, "bytes allocated by the receive thread for 16 000 frames: "
                + receiverAllocated);
    }
}
