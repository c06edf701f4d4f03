package ipoib.neighbour;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import java.util.concurrent.CompletableFuture;

/**
 * The path-information query of the design (§3.2): the path of a resolved neighbour at once,
 * else a stage completed when it resolves (the query starts the resolution as a send would), or
 * why there is no such node.
 */
final class PathInfoQueries {
    private final EngineContext engine;
    private final NeighbourTables tables;
    private final PathResolution paths;
    private final EntryTimers timers;

    PathInfoQueries(EngineContext engine, NeighbourTables tables, PathResolution paths, EntryTimers timers) {
        this.engine = engine;
        this.tables = tables;
        this.paths = paths;
        this.timers = timers;
    }

    /** See {@link NeighbourEngine#pathInfo}. */
    PathInfoAnswer pathInfo(IpoibLink link, long high, long low) {
        if (link == null || link.state() != LinkState.UP || engine.closed) {
            return new PathInfoAnswer.NoSuchNode(link == null ? "no such interface"
                    : "interface " + link.name() + " is " + link.state());
        }
        LinkContext ctx = tables.get(link.name());
        if (ctx == null || ctx.link != link) {
            ctx = tables.linkUp(link);
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            long now = engine.now();
            Neighbour n = ctx.map.get(high, low);
            if (n == null || n.removed) {
                String why = engine.protocol.cannotResolve(link, high, low);
                if (why != null) {
                    return new PathInfoAnswer.NoSuchNode(why);
                }
                n = tables.getOrCreate(ctx, high, low, now);
                if (n == null) {
                    return new PathInfoAnswer.NoSuchNode("the neighbour table of " + link.name() + " is full");
                }
            }
            boolean kick = false;
            Runnable askPath = null;
            CompletableFuture<PathInfo> waiter = new CompletableFuture<>();
            synchronized (n) {
                if (n.removed) {
                    continue;
                }
                Route r = n.route;
                if (r != null) {
                    return new PathInfoAnswer.Ready(PathResolution.info(r.record()));
                }
                if (n.state == NeighbourState.FAILED) {
                    if (now - n.deadlineNanos < 0) {
                        return new PathInfoAnswer.NoSuchNode(n.failure);
                    }
                    askPath = paths.restart(n, now);
                }
                n.addWaiter(waiter);
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
            return new PathInfoAnswer.Pending(waiter);
        }
        return new PathInfoAnswer.NoSuchNode("the entry of " + engine.address(high, low).getHostAddress()
                + " keeps changing");
    }
}
