package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.resolve.AddressBits;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The permanent entries an administrator added ({@code ipoib:neigh add}): kept per link name
 * across UP periods and installed in every fresh table, bounded to half the table so that dynamic
 * resolution always has room. A permanent entry is never changed by what the protocol hears; only
 * its path is resolved (and retried after the hold time when that fails).
 */
final class PermanentEntries {
    private record Key(long high, long low) {}

    private final EngineContext engine;
    private final EntryEndings endings;
    private final PathResolution paths;
    private final Map<String, Map<Key, LinkAddress>> byLink = new ConcurrentHashMap<>();

    PermanentEntries(EngineContext engine, EntryEndings endings, PathResolution paths) {
        this.engine = engine;
        this.endings = endings;
        this.paths = paths;
    }

    /**
     * Adds (or replaces) a permanent entry; installed in {@code current}, the link's table, when
     * the link is UP (null otherwise), else when it comes up.
     */
    void add(String linkName, long high, long low, LinkAddress address, LinkContext current) {
        String notANeighbour = notANeighbour(linkName, high, low);
        if (notANeighbour != null) {
            throw new IllegalArgumentException(AddressBits.text(engine.address(high, low)) + " cannot be a neighbour: "
                    + notANeighbour);
        }
        LinkAddress peer = address.withoutFlags();
        Map<Key, LinkAddress> statics = byLink.computeIfAbsent(linkName, k -> new ConcurrentHashMap<>());
        int limit = limit();
        synchronized (statics) {
            if (!statics.containsKey(new Key(high, low)) && statics.size() >= limit) {
                throw new IllegalArgumentException("the permanent entries of " + linkName + " are limited to " + limit
                        + " (half of maxEntries " + engine.settings.maxEntries()
                        + ", so that dynamic resolution always has room); delete one first");
            }
            statics.put(new Key(high, low), peer);
        }
        if (current != null) {
            install(current, high, low, peer, engine.now());
        }
    }

    /** Forgets a permanent entry; returns whether there was one. */
    boolean forget(String linkName, long high, long low) {
        Map<Key, LinkAddress> statics = byLink.get(linkName);
        return statics != null && statics.remove(new Key(high, low)) != null;
    }

    /** A fresh table: the link's permanent entries go in and their paths are asked for. */
    void installAll(LinkContext ctx) {
        Map<Key, LinkAddress> statics = byLink.get(ctx.name);
        if (statics != null) {
            long now = engine.now();
            statics.forEach((key, address) -> install(ctx, key.high(), key.low(), address, now));
        }
    }

    private void install(LinkContext ctx, long high, long low, LinkAddress address, long now) {
        Neighbour n = new Neighbour(ctx, high, low, engine.address(high, low), now);
        Neighbour old;
        synchronized (ctx.map) {
            old = ctx.map.get(high, low);
            if (old != null) {
                ctx.map.replace(old, n);
            } else {
                ctx.map.put(n);
            }
        }
        List<Runnable> after = new ArrayList<>(2);
        if (old != null) {
            synchronized (old) {
                // Frames waiting on the old entry move to the permanent one, in order.
                List<PendingFrames.Pending> pending = old.removed ? List.of() : old.drainQueue();
                endings.markRemoved(old, engine.counters.droppedFlushed, "replaced by a permanent entry", after);
                synchronized (n) {
                    for (PendingFrames.Pending p : pending) {
                        n.enqueue(p.etherType(), p.frame(), Integer.MAX_VALUE);
                    }
                }
            }
        }
        synchronized (n) {
            n.permanent = true;
            n.linkAddress = address;
            after.add(paths.start(n, now, false));
        }
        after.forEach(Runnable::run);
    }

    /** Permanent entries per link: half the table, the other half stays for resolution. */
    private int limit() {
        return Math.max(1, engine.settings.maxEntries() / 2);
    }

    /**
     * Why an address can never be a neighbour (multicast, the limited broadcast, unspecified,
     * loopback), or null; the protocol adds its own reasons (e.g. the interface's own address).
     */
    private String notANeighbour(String linkName, long high, long low) {
        InetAddress a = engine.address(high, low);
        if (a.isMulticastAddress()) {
            return "it is a multicast address";
        }
        if (!engine.ipv6 && low == 0xFFFF_FFFFL) {
            return "it is the limited broadcast address";
        }
        if (a.isAnyLocalAddress()) {
            return "it is the unspecified address";
        }
        if (a.isLoopbackAddress()) {
            return "it is a loopback address";
        }
        return engine.protocol.notANeighbour(linkName, high, low);
    }
}
