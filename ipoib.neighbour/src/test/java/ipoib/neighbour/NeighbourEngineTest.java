package ipoib.neighbour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.NoSuchNodeException;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.api.sa.SaException;
import ipoib.neighbour.testing.FakeLink;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The state machine with a hand-driven clock and a direct executor: every transition happens
 * inside the call that causes it, or in {@link NeighbourEngine#tick()}.
 */
class NeighbourEngineTest {

    static final long MS = 1_000_000L;
    static final int PEER_IP = 0x0A000002;
    static final Gid PEER_GID = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0201L);
    static final LinkAddress PEER = LinkAddress.of(Qpn.of(0x48), PEER_GID);

    final AtomicLong clock = new AtomicLong(1_000_000_000L);
    final List<String> solicitations = new CopyOnWriteArrayList<>();
    final Map<Gid, CompletableFuture<PathRecord>> paths = new ConcurrentHashMap<>();
    final List<String> log = new CopyOnWriteArrayList<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    FakeLink link;
    NeighbourEngine engine;
    volatile String cannotResolve;

    final Protocol protocol = new Protocol() {
        @Override
        public String solicit(IpoibLink l, long high, long low, Route unicast) {
            solicitations.add((unicast == null ? "broadcast " : "unicast " + unicast.qpn() + " ") + Long.toHexString(low));
            return null;
        }

        @Override
        public String cannotResolve(IpoibLink l, long high, long low) {
            return cannotResolve;
        }
    };

    final Reporter reporter = new Reporter() {
        @Override public void info(String message) { log.add("INFO " + message); }
        @Override public void warn(String message) { log.add("WARN " + message); }
        @Override public void error(String message) { log.add("ERROR " + message); }
        @Override public void event(String topic, Map<String, Object> properties) { events.add(topic); }
    };

    Settings settings = new Settings(100, 3, 1, 3, 8, 1000, 10_000, 500, 2000, false);

    @BeforeEach
    void setUp() {
        link = new FakeLink("ib0", 0x0002_c903_0000_0101L, 0x11);
        link.pathQuery = gid -> paths.computeIfAbsent(gid, g -> new CompletableFuture<>());
        engine = new NeighbourEngine(false, protocol, settings, reporter, new InterfaceCounters(new Counters()), Runnable::run,
                clock::get);
        engine.linkUp(link);
    }

    static MemorySegment frame(int n) {
        return MemorySegment.ofArray(new byte[] {(byte) n, 1, 2, 3});
    }

    void advance(long millis) {
        clock.addAndGet(millis * MS);
        engine.tick();
    }

    NeighbourEntry entry(int ip) {
        return engine.neighbours("ib0").stream().filter(e -> e.address().getAddress()[3] == (byte) ip).findFirst()
                .orElse(null);
    }

    long counter(String name) {
        return engine.counterSnapshot().get(name);
    }

    void resolve() {
        engine.learn(link, 0, PEER_IP, PEER, false, true);
        paths.get(PEER_GID).complete(FakeLink.path(PEER_GID, link.gid, 0x22, 5));
    }

    @Test
    void coldResolutionQueuesFramesAndSendsThemInOrder() {
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, PEER_IP, 0x0800, frame(1)));
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, PEER_IP, 0x0800, frame(2)));
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, PEER_IP, 0x0800, frame(3)));
        assertEquals(TransmitResult.DROPPED_QUEUE_FULL, engine.send(link, 0, PEER_IP, 0x0800, frame(4)));
        assertEquals(List.of("broadcast a000002"), solicitations);
        assertEquals(NeighbourState.INCOMPLETE, entry(2).state());
        assertEquals(3, entry(2).queuedFrames());

        engine.learn(link, 0, PEER_IP, PEER, false, true);
        assertEquals(NeighbourState.PATH_PENDING, entry(2).state());
        assertEquals(PEER, entry(2).linkAddress());
        assertTrue(link.sent.isEmpty());

        paths.get(PEER_GID).complete(FakeLink.path(PEER_GID, link.gid, 0x22, 5));
        NeighbourEntry e = entry(2);
        assertEquals(NeighbourState.RESOLVED, e.state());
        assertEquals(0x22, e.lid().value());
        assertEquals(2, e.serviceLevel(), "the broadcast group's SL by default");
        assertEquals(List.of(1, 2, 3), link.sent.stream().map(s -> (int) s.payload()[0]).toList());
        assertTrue(link.sent.stream().allMatch(s -> s.qpn() == 0x48));

        assertEquals(TransmitResult.SENT, engine.send(link, 0, PEER_IP, 0x0800, frame(5)));
        assertEquals(4, link.sent.size());
        assertEquals(1, counter("dropped_queue_full"));
        assertEquals(3, counter("queued_frames_sent"));
        assertTrue(events.contains("ipoib/neighbour/RESOLVED"));
    }

    @Test
    void serviceLevelCanComeFromThePath() {
        engine.settings(new Settings(100, 3, 1, 3, 8, 1000, 10_000, 500, 2000, true));
        resolveBySend();
        assertEquals(5, entry(2).serviceLevel());
    }

    void resolveBySend() {
        engine.send(link, 0, PEER_IP, 0x0800, frame(0));
        resolve();
    }

    @Test
    void unansweredSolicitationsAreRetransmittedThenTheEntryFails() throws Exception {
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        PathInfoAnswer answer = engine.pathInfo(link, 0, PEER_IP);
        CompletableFuture<?> pending = ((PathInfoAnswer.Pending) answer).path().toCompletableFuture();
        advance(50);
        assertEquals(1, solicitations.size(), "not before the retransmission time");
        advance(60);
        advance(110);
        assertEquals(3, solicitations.size());
        assertEquals(2, counter("solicitations_retransmitted"));
        advance(110);
        assertEquals(NeighbourState.FAILED, entry(2).state());
        assertEquals(1, counter("dropped_resolution_failed"));
        ExecutionException failure = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, pending::get);
        assertInstanceOf(NoSuchNodeException.class, failure.getCause());

        assertEquals(TransmitResult.DROPPED_NO_ROUTE, engine.send(link, 0, PEER_IP, 0x0800, frame(2)));
        assertInstanceOf(PathInfoAnswer.NoSuchNode.class, engine.pathInfo(link, 0, PEER_IP));
        advance(600);
        assertNull(entry(2), "collected after the hold time");
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, PEER_IP, 0x0800, frame(3)));
        assertEquals(4, solicitations.size(), "a new attempt after the hold time");
    }

    @Test
    void aFailedPathLookupRemovesTheEntryAndCountsItsFrames() {
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        engine.send(link, 0, PEER_IP, 0x0800, frame(2));
        engine.learn(link, 0, PEER_IP, PEER, false, true);
        paths.get(PEER_GID).completeExceptionally(new SaException("PathRecord Get", 0x0300));
        assertNull(entry(2));
        assertEquals(2, counter("dropped_path_failure"));
        assertEquals(1, counter("path_failures"));
        assertTrue(log.stream().anyMatch(l -> l.startsWith("ERROR") && l.contains("2 queued frames dropped")), log.toString());
        assertTrue(link.sent.isEmpty());
    }

    @Test
    void aNewQpnOfTheSamePortHealsTheEntryWithoutANewPathLookup() {
        resolveBySend();
        int lookups = (int) counter("path_lookups");
        LinkAddress reset = LinkAddress.of(Qpn.of(0x99), PEER_GID);
        engine.learn(link, 0, PEER_IP, reset, false, false);
        assertEquals(reset, entry(2).linkAddress());
        assertEquals(NeighbourState.RESOLVED, entry(2).state());
        assertEquals(lookups, counter("path_lookups"));
        engine.send(link, 0, PEER_IP, 0x0800, frame(7));
        assertEquals(0x99, link.sent.get(link.sent.size() - 1).qpn());
        assertEquals(1, counter("qpn_changes"));
        assertTrue(events.contains("ipoib/neighbour/CHANGED"));
    }

    @Test
    void anAdvertisementWithoutOverrideDoesNotReplaceAKnownAddress() {
        resolveBySend();
        engine.learn(link, 0, PEER_IP, LinkAddress.of(Qpn.of(0x99), PEER_GID), false, true, false);
        assertEquals(PEER, entry(2).linkAddress());
        engine.learn(link, 0, PEER_IP, LinkAddress.of(Qpn.of(0x99), PEER_GID), false, true, true);
        assertEquals(0x99, entry(2).linkAddress().qpn().value());
    }

    @Test
    void aNewGidNeedsANewPath() {
        resolveBySend();
        Gid other = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x77);
        engine.learn(link, 0, PEER_IP, LinkAddress.of(Qpn.of(0x50), other), false, false);
        assertEquals(NeighbourState.PATH_PENDING, entry(2).state());
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, PEER_IP, 0x0800, frame(8)));
        paths.get(other).complete(FakeLink.path(other, link.gid, 0x33, 0));
        assertEquals(0x33, entry(2).lid().value());
        assertEquals(0x50, link.sent.get(link.sent.size() - 1).qpn());
    }

    @Test
    void usedEntriesAreRevalidatedUnicastFirstThenBroadcast() {
        resolveBySend();
        solicitations.clear();
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        advance(500);
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        advance(600);
        assertEquals(NeighbourState.STALE, entry(2).state());
        assertEquals(List.of("unicast 0x000048 a000002"), solicitations);
        assertEquals(TransmitResult.SENT, engine.send(link, 0, PEER_IP, 0x0800, frame(2)), "STALE still sends");
        advance(110);
        assertEquals("broadcast a000002", solicitations.get(1));
        // the peer answers from a new QPN: healed and confirmed
        engine.learn(link, 0, PEER_IP, LinkAddress.of(Qpn.of(0x61), PEER_GID), false, true);
        assertEquals(NeighbourState.RESOLVED, entry(2).state());
        engine.send(link, 0, PEER_IP, 0x0800, frame(3));
        assertEquals(0x61, link.sent.get(link.sent.size() - 1).qpn());
    }

    @Test
    void anAnswerToTheBroadcastProbeAfterSilentUnicastProbesRefreshesThePath() {
        resolveBySend();
        solicitations.clear();
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        advance(1100);
        assertEquals(NeighbourState.STALE, entry(2).state());
        advance(110);
        assertEquals(2, solicitations.size(), "unicast, then broadcast");
        paths.clear();
        engine.learn(link, 0, PEER_IP, PEER, false, true);
        assertEquals(NeighbourState.RESOLVED, entry(2).state());
        assertEquals(TransmitResult.SENT, engine.send(link, 0, PEER_IP, 0x0800, frame(2)), "sends meanwhile");
        paths.get(PEER_GID).complete(FakeLink.path(PEER_GID, link.gid, 0x55, 0));
        assertEquals(0x55, entry(2).lid().value(), "the peer's new LID");
        assertEquals(1, counter("path_refreshes"));
    }

    /**
     * The outage after a peer's LID changed right after its last confirmation,
     * with the peer answering broadcast at once. Unicast to the old LID is lost until
     * revalidation (revalidateMillis after the confirmation) probes by unicast, waits one
     * retransmission, solicits by broadcast and, answered from the same address, asks the link to
     * query the path again: the bound is revalidate + unicastProbes × retransmit + two ticks.
     */
    @Test
    void aRemoteLidChangeIsRepairedWithinRevalidationPlusOneRetransmission() {
        resolveBySend();
        long changedAt = clock.get();
        FakeLink.Path path = link.acquired.get(0);
        solicitations.clear();
        paths.clear();
        long tick = settings.tickMillis();
        long bound = settings.revalidateMillis() + (long) settings.unicastProbes() * settings.retransmitMillis() + 2 * tick;
        while (path.refreshes == 0) {
            assertTrue((clock.get() - changedAt) / MS <= bound, "path re-queried within " + bound + " ms");
            engine.send(link, 0, PEER_IP, 0x0800, frame(1)); // traffic keeps the entry in use
            advance(tick);
            if (!solicitations.isEmpty() && solicitations.get(solicitations.size() - 1).startsWith("broadcast")) {
                engine.learn(link, 0, PEER_IP, PEER, false, true); // the peer answers the broadcast probe
            }
        }
        paths.get(PEER_GID).complete(FakeLink.path(PEER_GID, link.gid, 0x66, 0));
        assertEquals(0x66, entry(2).lid().value());
        assertEquals(List.of("unicast 0x000048 a000002", "broadcast a000002"), solicitations,
                "one unicast probe, then one broadcast");
    }

    /**
     * A neighbour that announces itself (its LID changed) has its path queried
     * again at once, without waiting for revalidation; the entry keeps its path reference and
     * keeps sending meanwhile. An unknown sender asks nothing.
     */
    @Test
    void anAnnouncementRefreshesTheSendersPathAtOnce() {
        resolveBySend();
        FakeLink.Path path = link.acquired.get(0);
        assertEquals(0, path.refreshes);
        assertTrue(engine.announced(link, 0, PEER_IP));
        assertEquals(1, path.refreshes, "the path was asked again at once");
        assertEquals(1, counter("path_refreshes"));
        assertEquals(1, link.acquired.size(), "the same path reference: no new lookup");
        assertEquals(TransmitResult.SENT, engine.send(link, 0, PEER_IP, 0x0800, frame(9)), "still sending");
        assertFalse(engine.announced(link, 0, PEER_IP + 1), "nobody to refresh for an unknown sender");
    }

    /** Permanent entries take at most half the table; resolution keeps the other half. */
    @Test
    void permanentEntriesAreBoundedAndNeverStarveResolution() {
        for (int i = 1; i <= 4; i++) { // maxEntries 8: four permanent entries
            engine.addPermanent("ib0", 0, 0x0A000100 + i, LinkAddress.of(Qpn.of(i), new Gid(Gid.DEFAULT_SUBNET_PREFIX, i)));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> engine.addPermanent("ib0", 0,
                0x0A000105, LinkAddress.of(Qpn.of(5), new Gid(Gid.DEFAULT_SUBNET_PREFIX, 5))));
        assertEquals("the permanent entries of ib0 are limited to 4 (half of maxEntries 8, so that dynamic resolution"
                + " always has room); delete one first", e.getMessage());
        engine.addPermanent("ib0", 0, 0x0A000101, PEER); // replacing one is not adding
        for (int i = 1; i <= 4; i++) {
            assertEquals(TransmitResult.QUEUED, engine.send(link, 0, 0x0A000000 + i, 0x0800, frame(i)),
                    "dynamic resolution has room");
        }
        assertEquals(8, engine.neighbours("ib0").size());
    }

    /** Multicast, broadcast, unspecified and loopback addresses are no neighbours. */
    @Test
    void addressesThatCannotBeNeighboursAreRefused() {
        for (long bad : new long[] {0xE0000001L, 0xFFFFFFFFL, 0L, 0x7F000001L}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> engine.addPermanent("ib0", 0, bad, PEER));
            assertTrue(e.getMessage().contains("cannot be a neighbour: it is"), e.getMessage());
        }
        assertTrue(engine.neighbours("ib0").isEmpty());
    }

    @Test
    void aSilentPeerFailsRevalidation() {
        resolveBySend();
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        advance(1100);
        for (int i = 0; i < 5; i++) {
            advance(110);
        }
        assertEquals(NeighbourState.FAILED, entry(2).state());
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, engine.send(link, 0, PEER_IP, 0x0800, frame(2)));
    }

    @Test
    void idleEntriesAreCollectedAndUnusedOnesNotProbed() {
        resolveBySend();
        solicitations.clear();
        advance(5000);
        assertEquals(NeighbourState.RESOLVED, entry(2).state(), "not used since confirmed: not probed");
        assertTrue(solicitations.isEmpty());
        advance(6000);
        assertNull(entry(2));
        assertEquals(1, counter("entries_collected"));
        assertEquals(0, link.held(), "the path reference goes back to the link");
    }

    @Test
    void learningCreatesEntriesOnlyWhenAsked() {
        assertFalse(engine.learn(link, 0, 0x0A000009, PEER, false, false));
        assertNull(entry(9));
        assertTrue(engine.learn(link, 0, 0x0A000009, PEER, true, false));
        assertEquals(NeighbourState.PATH_PENDING, entry(9).state());
    }

    @Test
    void theTableIsBoundedAndEvictsTheLeastRecentlyUsed() {
        for (int i = 1; i <= 8; i++) {
            engine.learn(link, 0, 0x0A000000 + i, LinkAddress.of(Qpn.of(i), new Gid(Gid.DEFAULT_SUBNET_PREFIX, i)), true,
                    false);
            paths.get(new Gid(Gid.DEFAULT_SUBNET_PREFIX, i)).complete(
                    FakeLink.path(new Gid(Gid.DEFAULT_SUBNET_PREFIX, i), link.gid, i, 0));
        }
        for (int i = 2; i <= 8; i++) {
            engine.send(link, 0, 0x0A000000 + i, 0x0800, frame(i));
        }
        advance(10);
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, 0x0A000063, 0x0800, frame(99)));
        assertEquals(8, engine.neighbours("ib0").size());
        assertNull(entry(1), "the entry not used is evicted");
        assertEquals(1, counter("entries_evicted"));
    }

    @Test
    void aFullTableOfResolvingEntriesRefusesNewOnes() {
        for (int i = 1; i <= 8; i++) {
            engine.send(link, 0, 0x0A000000 + i, 0x0800, frame(i));
        }
        assertEquals(TransmitResult.DROPPED_TABLE_FULL, engine.send(link, 0, 0x0A000063, 0x0800, frame(99)),
                "the drop's true reason");
        assertEquals(1, counter("dropped_table_full"));
    }

    @Test
    void permanentEntriesResolveTheirPathAndSurviveFlushAndLinkRestart() {
        engine.addPermanent("ib0", 0, 0x0A000005, PEER);
        paths.get(PEER_GID).complete(FakeLink.path(PEER_GID, link.gid, 0x22, 0));
        assertEquals(NeighbourState.RESOLVED, entry(5).state());
        assertTrue(entry(5).permanent());
        assertEquals(0, engine.flush("ib0"));
        engine.learn(link, 0, 0x0A000005, LinkAddress.of(Qpn.of(0x99), PEER_GID), false, false);
        assertEquals(PEER, entry(5).linkAddress(), "ARP does not change a permanent entry");
        engine.linkDown(link);
        assertTrue(engine.neighbours("ib0").isEmpty());
        link.qpn = Qpn.of(0x12);
        engine.linkUp(link);
        assertEquals(NeighbourState.RESOLVED, entry(5).state());
        assertTrue(engine.remove("ib0", 0, 0x0A000005));
        assertNull(entry(5));
    }

    /**
     * A permanent entry whose path lookup failed is FAILED for the hold time; the first send after
     * it asks the link for the path again at once (before the fix, the send set PATH_PENDING and
     * dropped the request, so the entry waited a whole PathRecord timeout).
     */
    @Test
    void aSendAfterTheHoldTimeAsksThePathOfAFailedPermanentEntryAgain() {
        engine.addPermanent("ib0", 0, 0x0A000005, PEER);
        paths.remove(PEER_GID).completeExceptionally(new SaException("PathRecord Get", 0x0300));
        assertEquals(NeighbourState.FAILED, entry(5).state());
        assertEquals(1, counter("path_lookups"));
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, engine.send(link, 0, 0x0A000005, 0x0800, frame(1)),
                "within the hold time");
        clock.addAndGet((settings.failedHoldMillis() + 1) * MS); // no tick: the send is first
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, 0x0A000005, 0x0800, frame(2)));
        assertEquals(NeighbourState.PATH_PENDING, entry(5).state());
        assertEquals(2, counter("path_lookups"), "the path is asked again by the send");
        paths.get(PEER_GID).complete(FakeLink.path(PEER_GID, link.gid, 0x22, 0));
        assertEquals(NeighbourState.RESOLVED, entry(5).state());
        assertEquals(List.of(2), link.sent.stream().map(s -> (int) s.payload()[0]).toList());
    }

    @Test
    void theNextFrameToAResolvedNeighbourFollowsAFlushAndALinkDown() {
        resolveBySend();
        assertEquals(TransmitResult.SENT, engine.send(link, 0, PEER_IP, 0x0800, frame(1)));
        int sent = link.sent.size();
        assertEquals(1, engine.flush("ib0"));
        assertEquals(TransmitResult.QUEUED, engine.send(link, 0, PEER_IP, 0x0800, frame(2)),
                "the frame after the flush waits for a new resolution");
        assertEquals(sent, link.sent.size());
        assertEquals(2, solicitations.size(), "and asks again: " + solicitations);
        engine.learn(link, 0, PEER_IP, PEER, false, true);
        assertEquals(NeighbourState.RESOLVED, entry(2).state());
        assertEquals(TransmitResult.SENT, engine.send(link, 0, PEER_IP, 0x0800, frame(3)));
        assertEquals(List.of(2, 3), link.sent.subList(sent, link.sent.size()).stream().map(s -> (int) s.payload()[0])
                .toList());
        engine.linkDown(link);
        link.state = ipoib.api.link.LinkState.DOWN;
        assertEquals(TransmitResult.DROPPED_LINK_DOWN, engine.send(link, 0, PEER_IP, 0x0800, frame(4)),
                "the frame after the link went down");
    }

    @Test
    void aBoundSenderSendsAsTheEngineDoesAndFollowsItsEntry() {
        ipoib.api.resolve.NeighbourSender to = engine.sender(link, 0, PEER_IP);
        assertEquals(TransmitResult.QUEUED, to.send(0x0800, frame(1)), "cold: the entry resolves first");
        assertEquals(List.of("broadcast a000002"), solicitations);
        resolve();
        assertEquals(TransmitResult.SENT, to.send(0x0800, frame(2)));
        assertEquals(TransmitResult.SENT, to.send(0x0800, frame(3)));
        assertEquals(List.of(1, 2, 3), link.sent.stream().map(s -> (int) s.payload()[0]).toList());

        assertEquals(1, engine.flush("ib0"));
        assertEquals(TransmitResult.QUEUED, to.send(0x0800, frame(4)), "the entry it kept was flushed");
        assertEquals(2, solicitations.size());
        engine.learn(link, 0, PEER_IP, PEER, false, true);
        assertEquals(TransmitResult.SENT, to.send(0x0800, frame(5)), "and it keeps the new one");
        assertEquals(List.of(1, 2, 3, 4, 5), link.sent.stream().map(s -> (int) s.payload()[0]).toList());

        engine.linkDown(link);
        link.state = ipoib.api.link.LinkState.DOWN;
        assertEquals(TransmitResult.DROPPED_LINK_DOWN, to.send(0x0800, frame(6)));
        link.state = ipoib.api.link.LinkState.UP;
        engine.linkUp(link);
        assertEquals(TransmitResult.QUEUED, to.send(0x0800, frame(7)), "a new UP period: a new table");
        assertEquals(5, link.sent.size());
    }

    @Test
    void aBoundSenderOfAResolvedNeighbourAllocatesNothing() {
        resolveBySend();
        link.record = false;
        ipoib.api.resolve.NeighbourSender to = engine.sender(link, 0, PEER_IP);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        MemorySegment f = frame(1);
        for (int i = 0; i < 200_000; i++) {
            to.send(0x0800, f);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        int sent = 0;
        for (int i = 0; i < 50_000; i++) {
            if (to.send(0x0800, f) == TransmitResult.SENT) {
                sent++;
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(50_000, sent);
        assertTrue(allocated < 50_000 * 16L / 100, allocated + " octets allocated in 50,000 sends");
    }

    @Test
    void linkDownDropsQueuedFramesAndFailsWaiters() {
        engine.send(link, 0, PEER_IP, 0x0800, frame(1));
        CompletableFuture<?> w = ((PathInfoAnswer.Pending) engine.pathInfo(link, 0, PEER_IP)).path().toCompletableFuture();
        engine.linkDown(link);
        assertTrue(w.isCompletedExceptionally());
        assertEquals(1, counter("dropped_link_down"));
        link.state = ipoib.api.link.LinkState.DOWN;
        assertEquals(TransmitResult.DROPPED_LINK_DOWN, engine.send(link, 0, PEER_IP, 0x0800, frame(2)));
    }

    @Test
    void pathInfoIsReadyForAResolvedNeighbour() throws Exception {
        PathInfoAnswer first = engine.pathInfo(link, 0, PEER_IP);
        CompletableFuture<ipoib.api.resolve.PathInfo> later =
                ((PathInfoAnswer.Pending) first).path().toCompletableFuture();
        resolve();
        assertEquals(0x22, later.get().destinationLid().value());
        PathInfoAnswer now = engine.pathInfo(link, 0, PEER_IP);
        assertEquals(PEER_GID, ((PathInfoAnswer.Ready) now).path().destinationGid());
        assertEquals(link.gid, ((PathInfoAnswer.Ready) now).path().sourceGid());
        cannotResolve = "no IPv4 address on ib0";
        assertEquals(new PathInfoAnswer.NoSuchNode("no IPv4 address on ib0"), engine.pathInfo(link, 0, 0x0A000077));
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, engine.send(link, 0, 0x0A000077, 0x0800, frame(1)));
    }

    @Test
    void concurrentSendersDuringResolutionKeepTheirOrder() throws Exception {
        link.record = true;
        engine.settings(new Settings(100, 3, 1, 1000, 8, 1000, 10_000, 500, 2000, false));
        int frames = 3000;
        Thread sender = new Thread(() -> {
            for (int i = 0; i < frames; i++) {
                engine.send(link, 0, PEER_IP, 0x0800, MemorySegment.ofArray(new byte[] {(byte) (i >>> 8), (byte) i}));
            }
        });
        sender.start();
        while (entry(2) == null || entry(2).queuedFrames() < 10) {
            Thread.onSpinWait();
        }
        resolve();
        sender.join();
        List<Integer> seen = new ArrayList<>();
        for (FakeLink.Sent s : link.sent) {
            seen.add((s.payload()[0] & 0xFF) << 8 | (s.payload()[1] & 0xFF));
        }
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) > seen.get(i - 1), "frame " + seen.get(i) + " after " + seen.get(i - 1));
        }
        assertEquals(frames, seen.size() + counter("dropped_queue_full"));
    }

    @Test
    void sendersRacingLinkRestartsNeitherFailNorLeaveEntriesBehind() throws Exception {
        link.record = false;
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> senders = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            int base = t * 64;
            Thread s = new Thread(() -> {
                int i = 0;
                while (running.get()) {
                    try {
                        int ip = 0x0A000100 + base + (i++ & 63);
                        engine.send(link, 0, ip, 0x0800, frame(i));
                        engine.learn(link, 0, ip, LinkAddress.of(Qpn.of(ip & 0xFFFF), PEER_GID), true, true);
                    } catch (Throwable e) {
                        failures.add(e);
                        return;
                    }
                }
            });
            senders.add(s);
            s.start();
        }
        // At least 200 restarts, and on until the senders got frames through between them: a race
        // in which every send was dropped proves nothing.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        for (int round = 0; round < 200 || link.sentCount.get() < 100; round++) {
            assertTrue(System.nanoTime() < deadline, "no frame got through in 30 s of restarts");
            engine.linkDown(link);
            link.qpn = Qpn.of(0x100 + (round & 0xFFFF));
            engine.linkUp(link);
            paths.values().forEach(f -> f.complete(FakeLink.path(PEER_GID, link.gid, 0x22, 0)));
            paths.clear();
            engine.tick();
        }
        running.set(false);
        for (Thread s : senders) {
            s.join();
        }
        assertTrue(failures.isEmpty(), failures.toString());
        assertTrue(link.sentCount.get() > 0, "frames went out between the restarts (not every send was dropped)");
        engine.linkDown(link);
        assertTrue(engine.neighbours(null).isEmpty());
        assertEquals(0, link.held(), "every path reference went back to the link");
        link.state = ipoib.api.link.LinkState.DOWN;
        assertEquals(TransmitResult.DROPPED_LINK_DOWN, engine.send(link, 0, PEER_IP, 0x0800, frame(1)));
    }

    @Test
    void theSendPathOfAResolvedNeighbourAllocatesNothing() {
        resolveBySend();
        link.record = false;
        for (int i = 2; i <= 8; i++) {
            engine.learn(link, 0, 0x0A000000 + 16 * i, LinkAddress.of(Qpn.of(i), PEER_GID), true, true);
        }
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        MemorySegment f = frame(1);
        for (int i = 0; i < 200_000; i++) {
            engine.send(link, 0, PEER_IP, 0x0800, f);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        int sent = 0;
        for (int i = 0; i < 50_000; i++) {
            if (engine.send(link, 0, PEER_IP, 0x0800, f) == TransmitResult.SENT) {
                sent++;
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(50_000, sent);
        assertTrue(allocated < 50_000 * 16L / 100, allocated + " octets allocated in 50,000 sends");
    }
}
