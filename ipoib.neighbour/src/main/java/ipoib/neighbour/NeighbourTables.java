package ipoib.neighbour;

import ipoib.api.Qpn;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * One neighbour table per UP link (a {@link LinkContext} per UP period), and the membership of
 * entries in them: creation (bounded: a FAILED or the least recently used resolved entry is
 * evicted when full), removal, flush, snapshots, and the voiding of a table when its link goes
 * down or comes up again.
 */
final class NeighbourTables {
    private final EngineContext engine;
    private final EntryEndings endings;
    /** Fills a new table (the permanent entries of its link). */
    private final Consumer<LinkContext> fresh;
    private final ConcurrentHashMap<String, LinkContext> contexts = new ConcurrentHashMap<>();

    NeighbourTables(EngineContext engine, EntryEndings endings, Consumer<LinkContext> fresh) {
        this.engine = engine;
        this.endings = endings;
        this.fresh = fresh;
    }

    /** The table of a link name, or null. Lock-free. */
    LinkContext get(String linkName) {
        return contexts.get(linkName);
    }

    Collection<LinkContext> all() {
        return contexts.values();
    }

    /** A link is UP (idempotent for the same UP period): a fresh table, permanent entries resolved again. */
    synchronized LinkContext linkUp(IpoibLink link) {
        LinkContext old = contexts.get(link.name());
        Qpn own = link.qpn();
        if (old != null && old.link == link && !old.closed && own != null && own.equals(old.ownQpn)) {
            return old;
        }
        if (old != null) {
            close(old, "link " + link.name() + " came up again");
        }
        LinkContext ctx = new LinkContext(link, own);
        if (engine.closed) {
            return ctx;
        }
        contexts.put(link.name(), ctx);
        fresh.accept(ctx);
        return ctx;
    }

    /** A link went DOWN or away: its table is void (queued frames dropped and counted). */
    synchronized void linkDown(IpoibLink link) {
        LinkContext ctx = contexts.get(link.name());
        if (ctx != null && ctx.link == link) {
            contexts.remove(link.name(), ctx);
            close(ctx, "link " + link.name() + " went down");
        }
    }

    /** The engine stops: every table is void. */
    synchronized void closeAll() {
        for (LinkContext ctx : List.copyOf(contexts.values())) {
            contexts.remove(ctx.name, ctx);
            close(ctx, "resolver stopped");
        }
    }

    private void close(LinkContext ctx, String why) {
        // Entries are only created under the map's lock after checking closed, and values()
        // takes that lock: every entry is in the snapshot or never created.
        ctx.closed = true;
        List<Runnable> after = new ArrayList<>();
        for (Neighbour n : ctx.map.values()) {
            synchronized (n) {
                endings.markRemoved(n, engine.counters.droppedLinkDown, why, after);
            }
            ctx.map.remove(n);
        }
        after.forEach(Runnable::run);
    }

    /** The entry of a key, created INCOMPLETE when absent; null when the table is full. */
    Neighbour getOrCreate(LinkContext ctx, long high, long low, long now) {
        Neighbour victim = null;
        Neighbour created;
        synchronized (ctx.map) {
            if (ctx.closed) {
                return null;
            }
            Neighbour existing = ctx.map.get(high, low);
            if (existing != null && !existing.removed) {
                return existing;
            }
            created = new Neighbour(ctx, high, low, engine.address(high, low), now);
            if (existing != null) {
                ctx.map.replace(existing, created);
                return created;
            }
            if (ctx.map.size() >= engine.settings.maxEntries()) {
                victim = evictionVictim(ctx, now);
                if (victim == null) {
                    return null;
                }
                ctx.map.remove(victim);
            }
            ctx.map.put(created);
        }
        if (victim != null) {
            engine.counters.evicted.increment(ctx.name);
            List<Runnable> after = new ArrayList<>(1);
            synchronized (victim) {
                endings.markRemoved(victim, engine.counters.droppedFlushed,
                        "evicted: the table of " + ctx.name + " is full", after);
            }
            after.forEach(Runnable::run);
        }
        return created;
    }

    /** A FAILED entry, else the resolved one used longest ago; never one that is resolving or permanent. */
    private static Neighbour evictionVictim(LinkContext ctx, long now) {
        Neighbour best = null;
        long bestAge = -1;
        for (Neighbour n : ctx.map.values()) {
            synchronized (n) {
                if (n.permanent || n.removed) {
                    continue;
                }
                if (n.state == NeighbourState.FAILED) {
                    return n;
                }
                if (n.route != null && !n.used && now - n.lastUsedNanos > bestAge) {
                    best = n;
                    bestAge = now - n.lastUsedNanos;
                }
            }
        }
        return best;
    }

    /** Snapshots of the entries of a link, or of every link when {@code linkName} is null. */
    List<NeighbourEntry> snapshot(String linkName) {
        long now = engine.now();
        List<NeighbourEntry> out = new ArrayList<>();
        for (LinkContext ctx : contexts.values()) {
            if (linkName != null && !linkName.equals(ctx.name)) {
                continue;
            }
            for (Neighbour n : ctx.map.values()) {
                synchronized (n) {
                    if (n.removed) {
                        continue;
                    }
                    Route r = n.route;
                    out.add(new NeighbourEntry(ctx.name, n.address, n.flaggedAddress(),
                            r == null ? null : r.record().destinationLid(), r == null ? -1 : r.serviceLevel(), n.state,
                            Duration.ofNanos(Math.max(0, now - n.confirmedNanos)), n.queued(), n.permanent));
                }
            }
        }
        out.sort(Comparator.comparing(NeighbourEntry::link).thenComparing(e -> AddressBits.text(e.address())));
        return out;
    }

    /** Removes the non-permanent entries of a link (every link when null); returns how many. */
    int flush(String linkName) {
        int count = 0;
        for (LinkContext ctx : contexts.values()) {
            if (linkName != null && !linkName.equals(ctx.name)) {
                continue;
            }
            List<Runnable> after = new ArrayList<>();
            for (Neighbour n : ctx.map.values()) {
                boolean removed = false;
                synchronized (n) {
                    if (!n.permanent && !n.removed) {
                        endings.markRemoved(n, engine.counters.droppedFlushed, "flushed", after);
                        removed = true;
                    }
                }
                if (removed) {
                    ctx.map.remove(n);
                    count++;
                }
            }
            after.forEach(Runnable::run);
        }
        return count;
    }

    /** Removes one entry, permanent or not; returns whether there was one. */
    boolean remove(String linkName, long high, long low) {
        LinkContext ctx = contexts.get(linkName);
        Neighbour n = ctx == null ? null : ctx.map.get(high, low);
        if (n == null) {
            return false;
        }
        List<Runnable> after = new ArrayList<>(1);
        boolean removed;
        synchronized (n) {
            removed = !n.removed;
            endings.markRemoved(n, engine.counters.droppedFlushed, "removed", after);
        }
        ctx.map.remove(n);
        after.forEach(Runnable::run);
        return removed;
    }
}
