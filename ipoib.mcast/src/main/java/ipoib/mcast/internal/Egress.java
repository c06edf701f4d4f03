package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The send path of one link (RFC 4391 §10), on the caller's thread: a frame to a group the port
 * is a member of costs two lock-free lookups and no allocation; a frame to a group being joined
 * waits in the group's bounded queue; a frame to a group that does not exist goes to the
 * all-routers group when its scope is beyond link-local, else it is dropped. Also the control
 * loop's side of the queues: draining them after a join, and rerouting them when the group is absent.
 */
final class Egress {
    /** IPv4 limited broadcast 255.255.255.255: the broadcast-GID itself (§4, Figure 2). */
    static final byte[] LIMITED_BROADCAST = {(byte) 255, (byte) 255, (byte) 255, (byte) 255};

    private final LinkContext ctx;
    private final McastCounters counters;
    /** Asks the control loop to bring a group's membership to what is wanted (a frame waits for a join). */
    private final Consumer<Group> wake;

    Egress(LinkContext ctx, Consumer<Group> wake) {
        this.ctx = ctx;
        this.counters = ctx.counters;
        this.wake = wake;
    }

    /** §10 for one frame. Never blocks; allocates nothing when the port is a member of the group. */
    TransmitResult send(IpoibLink via, InetAddress group, int etherType, MemorySegment packet) {
        Destination d = ctx.table.cached(group);
        if (d != null) {
            Group g = ctx.table.get(d.mgid());
            if (g != null && g.sendable) {
                g.markSent();
                return via.sendMulticast(d.mgid(), etherType, packet);
            }
        }
        return sendSlow(via, group, d, etherType, packet);
    }

    private TransmitResult sendSlow(IpoibLink via, InetAddress group, Destination known, int etherType,
                                    MemorySegment packet) {
        if (!ctx.up || via.state() != LinkState.UP) {
            counters.droppedLinkDown.increment();
            return TransmitResult.DROPPED_LINK_DOWN;
        }
        if (known == null && group instanceof Inet4Address && Arrays.equals(group.getAddress(), LIMITED_BROADCAST)) {
            return via.sendBroadcast(etherType, packet);
        }
        if (packet.byteSize() > via.mtu()) {
            counters.droppedTooBig.increment();
            return TransmitResult.DROPPED_TOO_BIG;
        }
        Destination d = known;
        if (d == null) {
            try {
                d = ctx.table.destination(group);
            } catch (IllegalArgumentException e) {
                counters.droppedNotMulticast.increment();
                return TransmitResult.DROPPED_NO_ROUTE;
            }
        }
        return route(via, d.mgid(), d.ipv6(), d.beyondLinkLocal(), group, etherType, packet, false);
    }

    /**
     * The egress decision for a frame to {@code mgid}: send (member), queue for a send-only join
     * (group exists or not known yet: the join asks the SA), the all-routers group (group absent,
     * scope beyond link-local), or drop. {@code viaRouters}: {@code mgid} is the all-routers group
     * standing in for the frame's own.
     */
    private TransmitResult route(IpoibLink via, Mgid mgid, boolean ipv6, boolean beyondLinkLocal, InetAddress address,
                                 int etherType, MemorySegment packet, boolean viaRouters) {
        for (int attempt = 0; attempt < 3; attempt++) {
            Group g = ctx.table.get(mgid);
            if (g == null) {
                g = ctx.table.getOrCreate(mgid, ipv6, address);
                if (g == null) {
                    counters.droppedTableFull.increment();
                    return TransmitResult.DROPPED_NO_ROUTE;
                }
            }
            if (g.sendable) {
                g.markSent();
                return sent(via.sendMulticast(mgid, etherType, packet), viaRouters);
            }
            boolean queued = false;
            boolean wakeControl = false;
            synchronized (g) {
                if (g.retired) {
                    continue;
                }
                if (g.sendable) {
                    // The join completed and the queue was drained while we waited for the monitor.
                    return sent(via.sendMulticast(mgid, etherType, packet), viaRouters);
                }
                // A SendOnlyFullMember join creates a missing group (as Linux's send-only joins do).
                if (g.existence != Group.Existence.ABSENT || ctx.sendOnlyCreates) {
                    if (g.phase == Group.Phase.HOLDOFF) {
                        counters.droppedJoinFailed.increment();
                        return TransmitResult.DROPPED_NO_ROUTE;
                    }
                    if (g.queue.size() >= ctx.settings().queueLength()) {
                        counters.droppedQueueFull.increment();
                        return TransmitResult.DROPPED_QUEUE_FULL;
                    }
                    g.queue.add(new Group.QueuedFrame(etherType, copy(packet), beyondLinkLocal, ipv6, viaRouters));
                    counters.queued.increment();
                    queued = true;
                    if (!g.sendWanted) {
                        g.sendWanted = true;
                        wakeControl = true;
                    }
                }
            }
            if (!queued) {
                return viaAllRouters(via, ipv6, beyondLinkLocal, etherType, packet, !viaRouters);
            }
            if (wakeControl) {
                Group target = g;
                ctx.execute(() -> wake.accept(target));
            }
            return TransmitResult.QUEUED;
        }
        counters.droppedNoRoute.increment();
        return TransmitResult.DROPPED_NO_ROUTE;
    }

    /** A frame that went to the all-routers group in place of its own is counted as such once it is really sent. */
    private TransmitResult sent(TransmitResult r, boolean viaRouters) {
        if (viaRouters && !r.isDrop()) {
            counters.viaAllRouters.increment();
        }
        return r;
    }

    /** §10's third and fourth branches for a group that does not exist. */
    private TransmitResult viaAllRouters(IpoibLink via, boolean ipv6, boolean beyondLinkLocal, int etherType,
                                         MemorySegment packet, boolean allRoutersAllowed) {
        if (!allRoutersAllowed || !beyondLinkLocal) {
            counters.droppedNoRoute.increment();
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        Destination routers = ctx.table.allRouters(ipv6);
        return route(via, routers.mgid(), ipv6, false, routers.address(), etherType, packet, true);
    }

    /** Sends the queued frames in order, then opens the lock-free path; under the monitor so no frame overtakes. */
    void drain(Group g) {
        IpoibLink l = ctx.link;
        synchronized (g) {
            for (Group.QueuedFrame f; (f = g.queue.poll()) != null; ) {
                TransmitResult r = sent(l.sendMulticast(g.mgid, f.etherType(), f.packet()), f.viaRouters());
                if (!r.isDrop()) {
                    counters.sentAfterJoin.increment();
                }
            }
            g.sendWanted = false;
            g.sendable = g.held != null;
        }
        g.markSent();
    }

    /** Frames queued for a group that does not exist take §10's next branch. */
    void reroute(Group g) {
        List<Group.QueuedFrame> frames;
        synchronized (g) {
            frames = new ArrayList<>(g.queue);
            g.queue.clear();
            g.sendWanted = false;
        }
        IpoibLink l = ctx.link;
        for (Group.QueuedFrame f : frames) {
            viaAllRouters(l, f.ipv6(), f.beyondLinkLocal(), f.etherType(), f.packet(), !f.viaRouters());
        }
    }

    /** Frees the queued frames, counting them. */
    static void dropQueued(Group g, java.util.concurrent.atomic.LongAdder counter) {
        synchronized (g) {
            counter.add(g.queue.size());
            g.queue.clear();
            g.sendWanted = false;
        }
    }

    private static MemorySegment copy(MemorySegment packet) {
        byte[] bytes = new byte[(int) packet.byteSize()];
        MemorySegment copy = MemorySegment.ofArray(bytes);
        MemorySegment.copy(packet, 0, copy, 0, bytes.length);
        return copy;
    }
}
