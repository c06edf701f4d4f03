package ipoib.neighbour;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourSender;
import ipoib.api.resolve.NeighbourState;
import java.lang.foreign.MemorySegment;

/**
 * The data path: a frame to a resolved neighbour goes to the link with the neighbour's
 * {@link Route} after two lock-free, allocation-free lookups (the link's table by name, the
 * neighbour by its two-long key). Only a miss — no entry, or one that cannot send yet — takes
 * the entry's own lock, to queue the frame (a copy, bounded) behind the frames already waiting;
 * a new entry is solicited at once on the control thread.
 */
final class SendPath {
    private final EngineContext engine;
    private final NeighbourTables tables;
    private final PathResolution paths;
    private final EntryTimers timers;

    SendPath(EngineContext engine, NeighbourTables tables, PathResolution paths, EntryTimers timers) {
        this.engine = engine;
        this.tables = tables;
        this.paths = paths;
        this.timers = timers;
    }

    /** See {@link NeighbourEngine#sender}. */
    NeighbourSender bound(IpoibLink link, long high, long low) {
        return new Bound(link, high, low);
    }

    /**
     * A sender bound to one next hop: it keeps the entry it found last and sends on its route
     * without the two look-ups while the route is there. Every way out of the table nulls an
     * entry's route first (removed, flushed, its link down or up again: {@link EntryEndings};
     * FAILED; a new path lookup), so a kept entry with a route is the one a look-up would find;
     * otherwise the frame takes the full path and the entry is looked up again.
     */
    private final class Bound implements NeighbourSender {
        private final IpoibLink link;
        private final long high;
        private final long low;
        /** The entry found last (written only after a miss; any thread's is as good). */
        private volatile Neighbour last;

        Bound(IpoibLink link, long high, long low) {
            this.link = link;
            this.high = high;
            this.low = low;
        }

        @Override
        public TransmitResult send(int etherType, MemorySegment frame) {
            Neighbour n = last;
            if (n != null) {
                TransmitResult sent = viaRoute(n, link, etherType, frame);
                if (sent != null) {
                    return sent;
                }
            }
            TransmitResult result = SendPath.this.send(link, high, low, etherType, frame);
            LinkContext ctx = tables.get(link.name());
            Neighbour found = ctx != null && ctx.link == link ? ctx.map.get(high, low) : null;
            if (found != n) {
                last = found;
            }
            return result;
        }

        @Override
        public String toString() {
            return "sender to " + (last == null ? Long.toHexString(low) : last.toString());
        }
    }

    /** The frame through the entry's route (marking the entry used), or null when it has none. */
    private static TransmitResult viaRoute(Neighbour n, IpoibLink link, int etherType, MemorySegment frame) {
        Route r = n.route;
        if (r == null) {
            return null;
        }
        if (!n.used) {
            n.used = true;
        }
        return link.sendUnicast(r.path(), r.linkAddress(), etherType, frame);
    }

    /** See {@link NeighbourEngine#send}. */
    TransmitResult send(IpoibLink link, long high, long low, int etherType, MemorySegment frame) {
        LinkContext ctx = tables.get(link.name());
        if (ctx != null && ctx.link == link) {
            Neighbour n = ctx.map.get(high, low);
            if (n != null) {
                TransmitResult sent = viaRoute(n, link, etherType, frame);
                if (sent != null) {
                    return sent;
                }
            }
            return missed(ctx, n, high, low, etherType, frame);
        }
        if (link.state() != LinkState.UP || engine.closed) {
            engine.counters.droppedLinkDown.increment(link.name());
            return TransmitResult.DROPPED_LINK_DOWN;
        }
        return missed(tables.linkUp(link), null, high, low, etherType, frame);
    }

    private TransmitResult missed(LinkContext ctx, Neighbour n, long high, long low, int etherType,
                                  MemorySegment frame) {
        EngineCounters c = engine.counters;
        for (int attempt = 0; attempt < 3; attempt++) {
            long now = engine.now();
            if (ctx.closed) {
                // The link went down (or came up again) meanwhile: its table is void.
                LinkContext current = tables.get(ctx.name);
                if (current == null || current.link != ctx.link) {
                    c.droppedLinkDown.increment(ctx.name);
                    return TransmitResult.DROPPED_LINK_DOWN;
                }
                ctx = current;
                n = null;
            }
            if (n == null) {
                if (engine.protocol.cannotResolve(ctx.link, high, low) != null) {
                    c.droppedNoSource.increment(ctx.name);
                    return TransmitResult.DROPPED_NO_ROUTE;
                }
                n = tables.getOrCreate(ctx, high, low, now);
                if (n == null) {
                    if (ctx.closed) {
                        continue;
                    }
                    c.droppedTableFull.increment(ctx.name);
                    return TransmitResult.DROPPED_TABLE_FULL;
                }
            }
            boolean kick = false;
            Runnable askPath = null;
            TransmitResult result;
            synchronized (n) {
                if (n.removed) {
                    n = null;
                    continue;
                }
                Route r = n.route;
                if (r != null) {
                    n.used = true;
                    return ctx.link.sendUnicast(r.path(), r.linkAddress(), etherType, frame);
                }
                if (n.state == NeighbourState.FAILED) {
                    if (now - n.deadlineNanos < 0) {
                        c.droppedFailedEntry.increment(ctx.name);
                        return TransmitResult.DROPPED_NO_ROUTE;
                    }
                    askPath = paths.restart(n, now);
                }
                if (n.enqueue(etherType, frame, engine.settings.queueLength())) {
                    c.queued.increment(ctx.name);
                    result = TransmitResult.QUEUED;
                } else {
                    c.droppedQueueFull.increment(ctx.name);
                    result = TransmitResult.DROPPED_QUEUE_FULL;
                }
                if (n.state == NeighbourState.INCOMPLETE && n.probes == 0) {
                    kick = true;
                }
            }
            if (askPath != null) {
                askPath.run();
            }
            if (kick) {
                timers.kick(n);
            }
            return result;
        }
        c.droppedTableFull.increment(ctx.name);
        return TransmitResult.DROPPED_TABLE_FULL;
    }
}
