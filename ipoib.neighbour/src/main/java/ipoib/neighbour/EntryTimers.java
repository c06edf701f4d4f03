package ipoib.neighbour;

import ipoib.api.resolve.NeighbourState;
import java.util.ArrayList;
import java.util.List;

/**
 * The timed transitions of the entries, run by the engine's tick on the control thread:
 * retransmitted solicitations of INCOMPLETE entries, the PathRecord timeout, revalidation of
 * used entries whose confirmation is older than the revalidation period (RFC 4391 §9.4: a
 * peer's QPN can change; unicast probes first, then broadcast), the end of a FAILED entry's
 * hold time, and the collection of idle entries.
 */
final class EntryTimers {
    private final EngineContext engine;
    private final EntryEndings endings;
    private final PathResolution paths;

    EntryTimers(EngineContext engine, EntryEndings endings, PathResolution paths) {
        this.engine = engine;
        this.endings = endings;
        this.paths = paths;
    }

    /** One tick over every table: notes which entries were used since the last one, then their transitions. */
    void tick(Iterable<LinkContext> tables) {
        long now = engine.now();
        for (LinkContext ctx : tables) {
            for (Neighbour n : ctx.map.values()) {
                List<Runnable> after = new ArrayList<>(1);
                synchronized (n) {
                    if (n.used) {
                        n.used = false;
                        n.lastUsedNanos = now;
                    }
                    process(n, now, after);
                }
                after.forEach(Runnable::run);
            }
        }
    }

    /** Has a new INCOMPLETE entry solicited now, on the control thread, instead of at the next tick. */
    void kick(Neighbour n) {
        engine.execute(() -> {
            List<Runnable> after = new ArrayList<>(1);
            synchronized (n) {
                process(n, engine.now(), after);
            }
            after.forEach(Runnable::run);
        });
    }

    /** The timed transitions of one entry. Holds n. */
    private void process(Neighbour n, long now, List<Runnable> after) {
        if (n.removed) {
            return;
        }
        Settings s = engine.settings;
        switch (n.state) {
            case INCOMPLETE -> solicit(n, s, now, after);
            case PATH_PENDING -> {
                if (now - n.deadlineNanos >= 0) {
                    paths.timedOut(n, now, after);
                }
            }
            case RESOLVED -> {
                if (n.permanent) {
                    return;
                }
                long confirmedAge = now - n.confirmedNanos;
                boolean usedSinceConfirmed = n.lastUsedNanos - n.confirmedNanos > 0;
                if (confirmedAge >= s.revalidateMillis() * 1_000_000L && usedSinceConfirmed) {
                    engine.counters.revalidations.increment(n.context.name);
                    n.state(NeighbourState.STALE, now);
                    n.probes = 0;
                    n.deadlineNanos = now;
                    revalidate(n, now, after);
                } else if (now - n.lastUsedNanos >= s.idleMillis() * 1_000_000L
                        && confirmedAge >= s.idleMillis() * 1_000_000L) {
                    endings.collect(n, "idle", after);
                }
            }
            case STALE -> revalidate(n, now, after);
            case FAILED -> {
                if (now - n.deadlineNanos < 0) {
                    return;
                }
                if (n.permanent) {
                    n.failure = null;
                    after.add(paths.start(n, now, false));
                } else {
                    endings.collect(n, "failed", after);
                }
            }
        }
    }

    /** An INCOMPLETE entry: a broadcast solicitation every retransmission time, then FAILED. */
    private void solicit(Neighbour n, Settings s, long now, List<Runnable> after) {
        if (now - n.deadlineNanos < 0) {
            return;
        }
        if (n.probes >= s.maxSolicitations()) {
            endings.resolutionFailed(n, "no answer to " + n.probes + " solicitations", now, after);
            return;
        }
        String why = engine.protocol.solicit(n.context.link, n.high, n.low, null);
        if (why != null) {
            endings.resolutionFailed(n, why, now, after);
            return;
        }
        if (n.probes > 0) {
            engine.counters.retransmissions.increment(n.context.name);
        }
        engine.counters.solicitations.increment(n.context.name);
        n.probes++;
        n.deadlineNanos = now + s.retransmitMillis() * 1_000_000L;
    }

    /** A STALE entry: unicast probes to the cached address, then broadcast solicitations, then FAILED. */
    private void revalidate(Neighbour n, long now, List<Runnable> after) {
        if (now - n.deadlineNanos < 0) {
            return;
        }
        Settings s = engine.settings;
        if (n.probes >= s.unicastProbes() + s.maxSolicitations()) {
            endings.resolutionFailed(n, "revalidation: no answer to " + n.probes + " probes", now, after);
            return;
        }
        boolean unicast = n.probes < s.unicastProbes() && n.route != null;
        String why = engine.protocol.solicit(n.context.link, n.high, n.low, unicast ? n.route : null);
        if (why != null) {
            endings.resolutionFailed(n, why, now, after);
            return;
        }
        if (unicast) {
            engine.counters.probes.increment(n.context.name);
        } else {
            engine.counters.solicitations.increment(n.context.name);
        }
        n.probes++;
        n.deadlineNanos = now + s.retransmitMillis() * 1_000_000L;
    }
}
