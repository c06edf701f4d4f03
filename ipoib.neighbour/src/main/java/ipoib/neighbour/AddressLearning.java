package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourState;
import ipoib.runtime.Reporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the protocol hears about neighbours, on the link's receive thread: link-layer addresses
 * (RFC 826's merge, RFC 4861 §7.2.5), which move an INCOMPLETE entry to PATH_PENDING, confirm
 * reachability, heal a STALE entry or follow a neighbour's new QPN or GID; and announcements
 * (gratuitous ARP, unsolicited NA), after which the neighbour's path is queried again.
 */
final class AddressLearning {
    private final EngineContext engine;
    private final NeighbourTables tables;
    private final PathResolution paths;

    AddressLearning(EngineContext engine, NeighbourTables tables, PathResolution paths) {
        this.engine = engine;
        this.tables = tables;
        this.paths = paths;
    }

    /** See {@link NeighbourEngine#learn(IpoibLink, long, long, LinkAddress, boolean, boolean, boolean)}. */
    boolean learn(IpoibLink link, long high, long low, LinkAddress heard, boolean create, boolean confirm,
                  boolean override) {
        LinkContext ctx = tables.get(link.name());
        if (ctx == null || ctx.link != link) {
            if (!create || link.state() != LinkState.UP || engine.closed) {
                return false;
            }
            ctx = tables.linkUp(link);
        }
        LinkAddress address = heard.withoutFlags();
        long now = engine.now();
        Neighbour n = ctx.map.get(high, low);
        if (n == null || n.removed) {
            if (!create) {
                return false;
            }
            n = tables.getOrCreate(ctx, high, low, now);
            if (n == null) {
                if (!ctx.closed) {
                    engine.counters.droppedTableFull.increment(ctx.name);
                }
                return false;
            }
        }
        List<Runnable> after = new ArrayList<>(2);
        synchronized (n) {
            if (n.removed) {
                return false;
            }
            if (n.permanent) {
                return true;
            }
            LinkAddress old = n.linkAddress;
            if (!override && old != null && !old.equals(address) && n.state != NeighbourState.FAILED) {
                return true;
            }
            n.flags = heard.flags();
            if (old == null) {
                n.linkAddress = address;
                n.confirmedNanos = now;
                after.add(paths.start(n, now, false));
            } else if (old.equals(address)) {
                Route current = n.route;
                if (current != null && current.linkAddress().flags() != n.flags) {
                    n.route = current.withAddress(n.flaggedAddress()); // the peer switched datagram/connected mode
                }
                sameAddress(n, confirm, now, after);
            } else if (old.gid().equals(address.gid())) {
                engine.counters.qpnChanges.increment(n.context.name);
                n.linkAddress = address;
                n.confirmedNanos = now;
                Route r = n.route;
                if (r != null) {
                    n.route = r.withAddress(n.flaggedAddress());
                    n.state(NeighbourState.RESOLVED, now);
                    n.probes = 0;
                } else if (n.state == NeighbourState.FAILED) {
                    after.add(paths.start(n, now, false));
                }
                after.add(changed(n, old, address));
            } else {
                engine.counters.gidChanges.increment(n.context.name);
                n.linkAddress = address;
                n.confirmedNanos = now;
                after.add(paths.start(n, now, false));
                after.add(changed(n, old, address));
            }
        }
        after.forEach(Runnable::run);
        return true;
    }

    /** The address the entry has: a FAILED entry resolves its path again, an answer confirms. Holds n. */
    private void sameAddress(Neighbour n, boolean confirm, long now, List<Runnable> after) {
        if (n.state == NeighbourState.FAILED) {
            n.failure = null;
            n.confirmedNanos = now;
            after.add(paths.start(n, now, false));
        } else if (confirm) {
            n.confirmedNanos = now;
            if (n.state == NeighbourState.STALE) {
                // The unicast probes went unanswered and the broadcast one was answered from the
                // same address: the path itself is stale (e.g. the peer's LID changed), so the
                // link queries it again.
                boolean unicastFailed = n.probes > engine.settings.unicastProbes() && n.route != null;
                n.state(NeighbourState.RESOLVED, now);
                n.probes = 0;
                if (unicastFailed) {
                    engine.counters.pathRefreshes.increment(n.context.name);
                    after.add(paths.start(n, now, true));
                }
            }
        }
    }

    private Runnable changed(Neighbour n, LinkAddress old, LinkAddress now) {
        String link = n.context.name;
        Reporter reporter = engine.reporter;
        String family = engine.family;
        return () -> {
            reporter.info(family + " neighbour " + AddressBits.text(n.address) + " on " + link
                    + " changed its link-layer address from " + old + " to " + now);
            reporter.event(IpoibEvents.NEIGHBOUR_CHANGED, Map.of(IpoibEvents.LINK, link,
                    IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.LINK_ADDRESS, now.toString()));
        };
    }

    /** See {@link NeighbourEngine#announced}. */
    boolean announced(IpoibLink link, long high, long low) {
        LinkContext ctx = tables.get(link.name());
        Neighbour n = ctx == null ? null : ctx.map.get(high, low);
        if (n == null) {
            return false;
        }
        Runnable refresh;
        synchronized (n) {
            if (n.removed || n.route == null) {
                return false;
            }
            engine.counters.pathRefreshes.increment(n.context.name);
            refresh = paths.start(n, engine.now(), true);
        }
        refresh.run();
        return true;
    }

    /** See {@link NeighbourEngine#linkAddressOf}. */
    LinkAddress linkAddressOf(IpoibLink link, long high, long low) {
        LinkContext ctx = tables.get(link.name());
        Neighbour n = ctx == null ? null : ctx.map.get(high, low);
        if (n == null) {
            return null;
        }
        synchronized (n) {
            return n.removed ? null : n.linkAddress;
        }
    }
}
