package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.Rate;
import ipoib.api.link.LinkPath;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/**
 * The link's path cache without a framework or a fabric: the test answers the PathRecord queries
 * and records the address handles made and destroyed.
 */
class PathCacheTest {
    static final Gid SELF = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0101);
    static final Gid PEER = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0202);
    static final int BROADCAST_SL = 3;

    final Map<Gid, List<CompletableFuture<PathRecord>>> queries = new HashMap<>();
    final List<Handle> handles = new ArrayList<>();
    final HandleReaper reaper = new HandleReaper();
    final SendHandles slots = new SendHandles(4);
    final PathCache cache = new PathCache(this::query, (record, sl) -> {
        Handle h = new Handle(PathCache.vector(record, sl));
        handles.add(h);
        return h;
    }, () -> BROADCAST_SL, reaper);

    static final class Handle implements AddressHandle {
        final AddressVector vector;
        boolean closed;

        Handle(AddressVector vector) {
            this.vector = vector;
        }

        @Override
        public AddressVector vector() {
            return vector;
        }

        @Override
        public void close() {
            if (closed) {
                throw new AssertionError("closed twice");
            }
            closed = true;
        }
    }

    CompletionStage<PathRecord> query(Gid to) {
        CompletableFuture<PathRecord> f = new CompletableFuture<>();
        queries.computeIfAbsent(to, k -> new ArrayList<>()).add(f);
        return f;
    }

    static PathRecord record(int lid, int sl) {
        return new PathRecord(PEER, SELF, Lid.of(lid), Lid.of(1), 0, PKey.DEFAULT, sl, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, 18, 0, 0);
    }

    void answer(int index, PathRecord r) {
        queries.get(PEER).get(index).complete(r);
    }

    static LinkPath now(CompletionStage<LinkPath> stage) {
        CompletableFuture<LinkPath> f = stage.toCompletableFuture();
        assertTrue(f.isDone(), "completed");
        return f.join();
    }

    static PathEntry entry(LinkPath p) {
        return ((PathEntry.Reference) p).entry;
    }

    @Test
    void usersOfOneDestinationShareOneQueryAndOneHandle() {
        CompletionStage<LinkPath> first = cache.acquire(PEER, false);
        CompletionStage<LinkPath> second = cache.acquire(PEER, false);
        assertEquals(1, queries.get(PEER).size(), "one PathRecord query for both");
        assertFalse(first.toCompletableFuture().isDone());
        answer(0, record(0x22, 7));
        LinkPath a = now(first);
        LinkPath b = now(second);
        assertNotSame(a, b, "a reference each");
        assertSame(entry(a), entry(b));
        assertEquals(1, handles.size());
        assertEquals(Lid.of(0x22), handles.get(0).vector.destinationLid());
        assertEquals(BROADCAST_SL, a.serviceLevel(), "RFC 4391 §9.1.2: the broadcast group's SL by default");
        assertEquals(Map.of(PEER, record(0x22, 7)), cache.snapshot());
    }

    @Test
    void theServiceLevelCanComeFromThePathRecord() {
        CompletionStage<LinkPath> s = cache.acquire(PEER, true);
        answer(0, record(0x22, 7));
        assertEquals(7, now(s).serviceLevel());
        assertEquals(7, handles.get(0).vector.serviceLevel());
    }

    @Test
    void theLastReleaseRetiresTheHandleWhichIsDestroyedOnlyAfterItsSendsCompleted() {
        CompletionStage<LinkPath> s1 = cache.acquire(PEER, false);
        CompletionStage<LinkPath> s2 = cache.acquire(PEER, false);
        answer(0, record(0x22, 0));
        LinkPath a = now(s1);
        LinkPath b = now(s2);
        Handle h = handles.get(0);
        // A send is posted on buffer 2 with the path's handle and has not completed.
        assertSame(h, entry(a).handleFor(slots, 2));

        a.release();
        a.release(); // a second release of the same reference changes nothing
        assertTrue(b.valid());
        assertFalse(a.valid());
        assertEquals(0, reaper.waiting());

        b.release();
        assertFalse(b.valid());
        assertTrue(cache.snapshot().isEmpty());
        assertEquals(1, reaper.reap(slots::inUse), "still used by the posted send");
        assertFalse(h.closed);
        slots.clear(2); // its completion was reclaimed
        assertEquals(0, reaper.reap(slots::inUse));
        assertTrue(h.closed);
        assertNull(entry(b).handleFor(slots, 3), "a dead path gives no handle to a late sender");
        assertFalse(slots.inUse(h));
    }

    @Test
    void aRefreshWithANewLidReplacesTheHandleAndSendingGoesOnMeanwhile() {
        LinkPath p = acquired(0x22);
        Handle old = handles.get(0);
        p.refresh();
        p.refresh(); // one query at a time
        assertEquals(2, queries.get(PEER).size());
        assertSame(old, entry(p).handleFor(slots, 0), "the old handle sends until the answer");
        answer(1, record(0x40, 0));
        assertEquals(Lid.of(0x40), p.record().destinationLid());
        Handle now = handles.get(1);
        assertSame(now, entry(p).handleFor(slots, 1));
        assertEquals(1, reaper.reap(slots::inUse), "buffer 0 still holds the old handle");
        slots.clear(0);
        reaper.reap(slots::inUse);
        assertTrue(old.closed);
        assertFalse(now.closed);
    }

    @Test
    void aRefreshWithTheSameVectorKeepsTheHandle() {
        LinkPath p = acquired(0x22);
        cache.refreshAll();
        answer(1, record(0x22, 0));
        assertEquals(1, handles.size());
        assertEquals(0, reaper.waiting());
        assertEquals(0, cache.handleChanges.sum());
    }

    @Test
    void aFailedRefreshKeepsThePathThatWorks() {
        LinkPath p = acquired(0x22);
        p.refresh();
        queries.get(PEER).get(1).completeExceptionally(new SaException("PathRecord Get", SaStatus.NO_RECORDS));
        assertTrue(p.valid());
        assertEquals(Lid.of(0x22), p.record().destinationLid());
        assertEquals(1, cache.failures.sum());
    }

    @Test
    void aFailedFirstQueryFailsEveryWaiterAndTheNextAcquireAsksAgain() {
        CompletionStage<LinkPath> s = cache.acquire(PEER, false);
        queries.get(PEER).get(0).completeExceptionally(new SaException("PathRecord Get", SaStatus.NO_RECORDS));
        assertTrue(s.toCompletableFuture().isCompletedExceptionally());
        assertTrue(cache.snapshot().isEmpty());
        cache.acquire(PEER, false);
        assertEquals(2, queries.get(PEER).size());
    }

    @Test
    void closingFailsWaitersAndRetiresEveryHandle() {
        LinkPath p = acquired(0x22);
        Gid other = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0303);
        CompletionStage<LinkPath> pending = cache.acquire(other, false);
        cache.close("link went down");
        assertFalse(p.valid());
        assertTrue(pending.toCompletableFuture().isCompletedExceptionally());
        assertTrue(cache.acquire(PEER, false).toCompletableFuture().isCompletedExceptionally());
        reaper.closeAll();
        assertTrue(handles.get(0).closed);
    }

    private LinkPath acquired(int lid) {
        CompletionStage<LinkPath> s = cache.acquire(PEER, false);
        answer(queries.get(PEER).size() - 1, record(lid, 0));
        return now(s);
    }
}
