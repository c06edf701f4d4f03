package ipoib.neighbour;

import ipoib.api.Gid;
import ipoib.api.PathRecord;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkPath;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.PathInfo;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.Reporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The PATH_PENDING step of an entry whose link-layer address is known: the link's path to the
 * peer's GID is acquired ({@link IpoibLink#acquirePath}), and its answer either resolves the entry
 * (the queued frames go out in order, then the {@link Route} is published) or fails it (design
 * §2.1.4: the entry is removed; a permanent one stays FAILED and is tried again after the hold
 * time). The engine never talks to the SA and never sees an address handle.
 */
final class PathResolution {
    private final EngineContext engine;
    private final EntryEndings endings;
    private final RateLimiter pathErrorLog;

    PathResolution(EngineContext engine, EntryEndings endings) {
        this.engine = engine;
        this.endings = endings;
        this.pathErrorLog = new RateLimiter(engine.runtimeClock(), 5, TimeUnit.SECONDS);
    }

    /**
     * Gets the link's path to the entry's GID. With {@code refresh} and a route, the link is asked
     * to query its path again and the entry keeps sending meanwhile; else the entry goes
     * PATH_PENDING and queues. Holds n; returns the task that asks the link, to run after the
     * lock is released.
     */
    Runnable start(Neighbour n, long now, boolean refresh) {
        Route current = n.route;
        if (refresh && current != null) {
            return () -> current.path().refresh();
        }
        int gen = ++n.pathGeneration;
        EntryEndings.retire(n.route);
        n.route = null;
        n.state(NeighbourState.PATH_PENDING, now);
        Settings s = engine.settings;
        n.deadlineNanos = now + s.pathTimeoutMillis() * 1_000_000L;
        Gid gid = n.linkAddress.gid();
        IpoibLink link = n.context.link;
        boolean pathSl = s.serviceLevelFromPath();
        return () -> {
            engine.counters.pathLookups.increment(n.context.name);
            CompletionStage<LinkPath> stage;
            try {
                stage = link.acquirePath(gid, pathSl);
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((path, failure) -> {
                if (engine.closed && path != null) {
                    path.release();
                    return;
                }
                engine.execute(() -> answered(n, gen, path, failure));
            });
        };
    }

    /**
     * A FAILED entry whose hold time is over tries again: a permanent one asks for its path (the
     * returned task, to run after the lock), any other goes INCOMPLETE and returns null: the
     * caller has it solicited at once. Holds n.
     */
    Runnable restart(Neighbour n, long now) {
        n.failure = null;
        n.probes = 0;
        n.deadlineNanos = now;
        if (n.permanent) {
            return start(n, now, false);
        }
        n.linkAddress = null;
        n.state(NeighbourState.INCOMPLETE, now);
        return null;
    }

    /** No answer within the PathRecord timeout: a late answer is ignored. Holds n. */
    void timedOut(Neighbour n, long now, List<Runnable> after) {
        n.pathGeneration++;
        failed(n, "no PathRecord answer within " + engine.settings.pathTimeoutMillis() + " ms", now, after);
    }

    private void answered(Neighbour n, int gen, LinkPath path, Throwable failure) {
        long now = engine.now();
        List<Runnable> after = new ArrayList<>(2);
        synchronized (n) {
            if (n.removed || gen != n.pathGeneration) {
                if (path != null) {
                    path.release(); // a late answer nobody waits for
                }
                return;
            }
            if (failure != null) {
                failed(n, "PathRecord lookup of " + n.linkAddress.gid() + " failed: " + message(failure), now, after);
            } else {
                resolved(n, path, now, after);
            }
        }
        after.forEach(Runnable::run);
    }

    private void resolved(Neighbour n, LinkPath path, long now, List<Runnable> after) {
        IpoibLink link = n.context.link;
        Route route = new Route(path, n.linkAddress.qpn(), n.flaggedAddress());
        // The frames queued meanwhile go first, then the route is published: a sender that finds
        // no route takes this lock and queues behind them, so the order holds.
        for (PendingFrames.Pending p : n.drainQueue()) {
            link.sendUnicast(path, route.linkAddress(), p.etherType(), p.frame());
            engine.counters.queuedSent.increment(n.context.name);
        }
        EntryEndings.retire(n.route);
        n.route = route;
        boolean fresh = n.state == NeighbourState.PATH_PENDING || n.state == NeighbourState.FAILED;
        if (fresh) {
            n.state(NeighbourState.RESOLVED, now);
            n.probes = 0;
            engine.counters.resolved.increment(n.context.name);
        }
        n.failure = null;
        List<CompletableFuture<PathInfo>> waiters = n.drainWaiters();
        PathInfo info = info(path.record());
        String linkName = n.context.name;
        String text = n.linkAddress.toString();
        Reporter reporter = engine.reporter;
        after.add(() -> {
            waiters.forEach(w -> w.complete(info));
            if (fresh) {
                reporter.event(IpoibEvents.NEIGHBOUR_RESOLVED, Map.of(IpoibEvents.LINK, linkName,
                        IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.LINK_ADDRESS, text));
            }
        });
    }

    /**
     * Design §2.1.4: a failed PathRecord lookup removes the entry, frees its queued frames
     * (counted) and logs the error. A permanent entry stays, FAILED, and is tried again after
     * the hold time.
     */
    private void failed(Neighbour n, String why, long now, List<Runnable> after) {
        EngineCounters c = engine.counters;
        c.pathFailures.increment(n.context.name);
        String line = LogLines.limit(pathErrorLog, engine.family + " neighbour " + AddressBits.text(n.address) + " on "
                + n.context.name + ": " + why + "; " + n.queued() + " queued frames dropped");
        Reporter reporter = engine.reporter;
        if (line != null) {
            after.add(() -> reporter.error(line));
        }
        if (n.permanent) {
            endings.fail(n, why, c.droppedPathFailure, now, after);
            return;
        }
        endings.markRemoved(n, c.droppedPathFailure, why, after);
        after.add(() -> n.context.map.remove(n));
        after.add(() -> reporter.event(IpoibEvents.NEIGHBOUR_FAILED, Map.of(IpoibEvents.LINK, n.context.name,
                IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.REASON, why)));
    }

    /** The path information of the design's query (§3.2) from a PathRecord. */
    static PathInfo info(PathRecord p) {
        return new PathInfo(p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(), p.flowLabel(),
                p.pkey(), p.serviceLevel(), p.mtu(), p.rate(), p.packetLifetime(), p.hopLimit(), p.trafficClass());
    }

    private static String message(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
