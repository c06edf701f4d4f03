package ipoib.neighbour;

import ipoib.runtime.InterfaceCounters;
import ipoib.api.event.IpoibEvents;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.NoSuchNodeException;
import ipoib.api.resolve.PathInfo;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.Reporter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How an entry stops sending: FAILED for the hold time (resolution gave up), or removed from its
 * table (flushed, evicted, collected, its link went down). Either way its queued frames are
 * dropped and counted, its path-information waiters told, and its path reference goes back to the
 * link. Every method holds the entry's lock and adds what must run after it to {@code after}.
 */
final class EntryEndings {
    private final EngineContext engine;
    private final RateLimiter failureLog;

    EntryEndings(EngineContext engine) {
        this.engine = engine;
        this.failureLog = new RateLimiter(engine.runtimeClock(), 5, TimeUnit.SECONDS);
    }

    /** Solicitations or probes ran out (or could not be sent): FAILED, logged and posted. */
    void resolutionFailed(Neighbour n, String why, long now, List<Runnable> after) {
        EngineCounters c = engine.counters;
        c.resolutionFailures.increment(n.context.name);
        int dropped = n.queued();
        fail(n, why, c.droppedResolutionFailed, now, after);
        String line = LogLines.limit(failureLog, engine.family + " neighbour " + AddressBits.text(n.address) + " on "
                + n.context.name + " FAILED: " + why + (dropped > 0 ? "; " + dropped + " queued frames dropped" : ""));
        String link = n.context.name;
        Reporter reporter = engine.reporter;
        after.add(() -> {
            if (line != null) {
                reporter.info(line);
            }
            reporter.event(IpoibEvents.NEIGHBOUR_FAILED, Map.of(IpoibEvents.LINK, link,
                    IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.REASON, why));
        });
    }

    /** Resolution gave up: FAILED for the hold time, queued frames dropped, waiters told. */
    void fail(Neighbour n, String why, InterfaceCounters.Counter dropCounter, long now, List<Runnable> after) {
        n.failure = why;
        n.state(NeighbourState.FAILED, now);
        retire(n.route);
        n.route = null;
        n.probes = 0;
        n.deadlineNanos = now + engine.settings.failedHoldMillis() * 1_000_000L;
        dropCounter.add(n.context.name, n.drainQueue().size());
        tellWaiters(n, why, after);
    }

    /** The entry leaves its table: no longer found by senders that look it up again. */
    void markRemoved(Neighbour n, InterfaceCounters.Counter dropCounter, String why, List<Runnable> after) {
        if (n.removed) {
            return;
        }
        n.removed = true;
        retire(n.route);
        n.route = null;
        dropCounter.add(n.context.name, n.drainQueue().size());
        tellWaiters(n, why, after);
    }

    /** An idle or failed entry is taken out of its table by the timer. */
    void collect(Neighbour n, String why, List<Runnable> after) {
        engine.counters.collected.increment(n.context.name);
        markRemoved(n, engine.counters.droppedFlushed, why, after);
        after.add(() -> n.context.map.remove(n));
    }

    /** The route is no longer used: its path reference goes back to the link. */
    static void retire(Route r) {
        if (r != null) {
            r.path().release();
        }
    }

    private static void tellWaiters(Neighbour n, String why, List<Runnable> after) {
        List<CompletableFuture<PathInfo>> waiters = n.drainWaiters();
        if (waiters.isEmpty()) {
            return;
        }
        String link = n.context.name;
        after.add(() -> {
            NoSuchNodeException e = new NoSuchNodeException(AddressBits.text(n.address) + " on " + link + ": " + why);
            waiters.forEach(w -> w.completeExceptionally(e));
        });
    }
}
