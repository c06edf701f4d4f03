package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.codec.mcast.MulticastMapping;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The groups one link knows, by MGID, and the cache of IP group → MGID the send path reads.
 * Senders read both maps lock-free; only the control loop removes.
 */
final class GroupTable {
    private final LinkContext ctx;
    /** MGID → group; read by senders. */
    private final ConcurrentHashMap<Mgid, Group> groups = new ConcurrentHashMap<>();
    /** IP group → its MGID and scope on this link; read by senders, a cache of {@link Destination#of}. */
    private final ConcurrentHashMap<InetAddress, Destination> destinations = new ConcurrentHashMap<>();

    GroupTable(LinkContext ctx) {
        this.ctx = ctx;
    }

    Group get(Mgid mgid) {
        return groups.get(mgid);
    }

    /** Whether {@code g} is still the table's group of its MGID (not forgotten or replaced). */
    boolean holds(Group g) {
        return groups.get(g.mgid) == g;
    }

    /** The group of an MGID, made when the table has room; null when it is full. */
    Group getOrCreate(Mgid mgid, boolean ipv6, InetAddress address) {
        Group g = groups.get(mgid);
        if (g == null && groups.size() < ctx.settings().maxGroups()) {
            g = groups.computeIfAbsent(mgid, m -> new Group(m, ipv6, address));
        }
        return g;
    }

    /** The group of an MGID found by router mode or a decision: the IPv4 group is recovered from the MGID. */
    Group getOrCreate(Mgid mgid) {
        boolean ipv6 = isIpv6(mgid);
        return getOrCreate(mgid, ipv6, ipv6 ? null : MulticastMapping.ipv4Group(mgid));
    }

    boolean full() {
        return groups.size() >= ctx.settings().maxGroups();
    }

    /** A snapshot of the groups, for the control loop to walk while it changes them. */
    List<Group> all() {
        return new ArrayList<>(groups.values());
    }

    /** The cached destination of an IP group; null when not cached. */
    Destination cached(InetAddress group) {
        return destinations.get(group);
    }

    /**
     * The destination of an IP group on this link, cached while the cache has room.
     *
     * @throws IllegalArgumentException when the address is not a multicast group
     */
    Destination destination(InetAddress group) {
        Destination d = Destination.of(group, ctx.broadcastGid);
        if (destinations.size() < 4 * ctx.settings().maxGroups()) {
            Destination raced = destinations.putIfAbsent(group, d);
            return raced != null ? raced : d;
        }
        return d;
    }

    Destination allRouters(boolean ipv6) {
        InetAddress routers = Destination.allRouters(ipv6);
        Destination d = destinations.get(routers);
        return d != null ? d : destination(routers);
    }

    /** Removes a group; a sender holding it looks again. */
    void forget(Group g) {
        groups.remove(g.mgid, g);
        retire(g, null);
    }

    /** The broadcast-GID changed: every MGID is derived anew. Returns the groups that were known. */
    List<Group> clearForNewBroadcastGid() {
        List<Group> old = all();
        groups.clear();
        destinations.clear();
        return old;
    }

    /** Closes a group to senders: its timer is off, its queue freed (and counted when a counter is given). */
    static void retire(Group g, LongAdder dropCounter) {
        g.cancelTimer();
        synchronized (g) {
            g.retired = true;
            g.sendable = false;
            if (dropCounter != null) {
                dropCounter.add(g.queue.size());
            }
            g.queue.clear();
            g.sendWanted = false;
        }
    }

    static boolean isIpv6(Mgid mgid) {
        return MulticastMapping.family(mgid) == MulticastMapping.Family.IPV6;
    }

    /** Whether an MGID is an IPoIB group of this link: its signature, P_Key and scope (§4). */
    boolean ofThisLink(Mgid mgid) {
        Mgid bcast = ctx.broadcastGid;
        return MulticastMapping.isIpoibMgid(mgid) && !MulticastMapping.isBroadcastGid(mgid)
                && MulticastMapping.pKey(mgid) == MulticastMapping.pKey(bcast) && mgid.scope() == bcast.scope();
    }
}
