package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.GroupOrigin;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.Port;
import ipoib.codec.mcast.MulticastMapping;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The multicast groups of one link (RFC 4391 §10, §11): listener joins (FullMember, creating the
 * group with the broadcast group's parameters), the egress decision with SendOnlyNonMember joins
 * and the all-routers fallback, the group cache kept by traps 66/67, router mode (NonMember joins
 * of every IPoIB group), retries with backoff, and the link's UP/DOWN/MULTICAST_RESET changes.
 *
 * <p>Every state change runs on the control thread. The send path reads two concurrent maps and
 * volatile fields: a frame to a group the port is a member of costs two lock-free lookups and no
 * allocation; only frames that wait for a join take the group's monitor.
 */
final class LinkGroups {
    /** IPv4 limited broadcast 255.255.255.255: the broadcast-GID itself (§4, Figure 2). */
    private static final byte[] LIMITED_BROADCAST = {(byte) 255, (byte) 255, (byte) 255, (byte) 255};

    final String name;
    final McastCounters counters = new McastCounters();
    private final McastEnvironment env;
    private final RateLimiter failureLog = new RateLimiter(5_000);

    /** MGID → group; read by senders. */
    private final ConcurrentHashMap<Mgid, Group> groups = new ConcurrentHashMap<>();
    /** IP group → its MGID and scope on this link; read by senders, a cache of {@link Destination#of}. */
    private final ConcurrentHashMap<InetAddress, Destination> destinations = new ConcurrentHashMap<>();

    private volatile IpoibLink link;
    /** The link's multicast-attach role (ipoib.api.link 2.0): attaches and detaches the groups. */
    private final MulticastAttachment attachment;
    private volatile boolean up;
    private volatile Mgid broadcastGid;
    private final int joinTimeoutMillis;
    private final int retryCount;

    // Control thread only.
    private int epoch;
    private boolean routerMode;
    private int routerFailures;
    private int upQpn = -1;
    private SubnetAdministrator sa;
    private Gid portGid;
    private McMemberRecord broadcastRecord;
    private TrapRegistry.PortTraps traps;
    private boolean closed;

    LinkGroups(MulticastAttachment attachment, int joinTimeoutMillis, int retryCount, McastEnvironment env) {
        IpoibLink link = attachment.link();
        this.attachment = attachment;
        this.name = link.name();
        this.link = link;
        this.env = env;
        this.joinTimeoutMillis = joinTimeoutMillis;
        this.retryCount = retryCount;
        this.broadcastGid = link.broadcastGid();
    }

    IpoibLink link() {
        return link;
    }

    // =====================================================================================================
    // Send path (any thread)
    // =====================================================================================================

    /** RFC 4391 §10 for one frame. Never blocks; allocates nothing when the port is a member of the group. */
    TransmitResult send(IpoibLink via, InetAddress group, int etherType, MemorySegment packet) {
        Destination d = destinations.get(group);
        if (d != null) {
            Group g = groups.get(d.mgid());
            if (g != null && g.sendable) {
                return via.sendMulticast(d.mgid(), etherType, packet);
            }
        }
        return sendSlow(via, group, d, etherType, packet);
    }

    private TransmitResult sendSlow(IpoibLink via, InetAddress group, Destination known, int etherType,
                                    MemorySegment packet) {
        if (!up || via.state() != LinkState.UP) {
            counters.droppedLinkDown.increment();
            return TransmitResult.DROPPED_LINK_DOWN;
        }
        if (known == null && group instanceof Inet4Address
                && java.util.Arrays.equals(group.getAddress(), LIMITED_BROADCAST)) {
            return via.sendBroadcast(etherType, packet);
        }
        if (packet.byteSize() > via.mtu()) {
            counters.droppedTooBig.increment();
            return TransmitResult.DROPPED_TOO_BIG;
        }
        Destination d = known;
        if (d == null) {
            try {
                d = destination(group);
            } catch (IllegalArgumentException e) {
                counters.droppedNotMulticast.increment();
                return TransmitResult.DROPPED_NO_ROUTE;
            }
        }
        return route(via, d.mgid(), d.ipv6(), d.beyondLinkLocal(), group, etherType, packet, true);
    }

    /** The destination of an IP group on this link, cached while the cache has room. */
    private Destination destination(InetAddress group) {
        Destination d = Destination.of(group, broadcastGid);
        if (destinations.size() < 4 * env.maxGroups()) {
            Destination raced = destinations.putIfAbsent(group, d);
            return raced != null ? raced : d;
        }
        return d;
    }

    /**
     * The egress decision for a frame to {@code mgid}: send (member), queue for a SendOnlyNonMember
     * join (group exists or not known yet: the lookup asks the SA first), the all-routers group
     * (group absent, scope beyond link-local), or drop.
     */
    private TransmitResult route(IpoibLink via, Mgid mgid, boolean ipv6, boolean beyondLinkLocal, InetAddress address,
                                 int etherType, MemorySegment packet, boolean allRoutersAllowed) {
        for (int attempt = 0; attempt < 3; attempt++) {
            Group g = groups.get(mgid);
            if (g == null) {
                if (groups.size() >= env.maxGroups()) {
                    counters.droppedTableFull.increment();
                    return TransmitResult.DROPPED_NO_ROUTE;
                }
                g = groups.computeIfAbsent(mgid, m -> new Group(m, ipv6, address));
            }
            if (g.sendable) {
                return via.sendMulticast(mgid, etherType, packet);
            }
            boolean queued = false;
            boolean wakeControl = false;
            synchronized (g) {
                if (g.retired) {
                    continue;
                }
                if (g.sendable) {
                    // The join completed and the queue was drained while we waited for the monitor.
                    return via.sendMulticast(mgid, etherType, packet);
                }
                if (g.existence != Group.Existence.ABSENT) {
                    if (g.phase == Group.Phase.HOLDOFF) {
                        counters.droppedJoinFailed.increment();
                        return TransmitResult.DROPPED_NO_ROUTE;
                    }
                    if (g.queue.size() >= env.queueLength()) {
                        counters.droppedQueueFull.increment();
                        return TransmitResult.DROPPED_QUEUE_FULL;
                    }
                    g.queue.add(new Group.QueuedFrame(etherType, copy(packet), beyondLinkLocal, ipv6));
                    counters.queued.increment();
                    queued = true;
                    if (!g.sendWanted) {
                        g.sendWanted = true;
                        wakeControl = true;
                    }
                }
            }
            if (!queued) {
                return viaAllRouters(via, ipv6, beyondLinkLocal, etherType, packet, allRoutersAllowed);
            }
            if (wakeControl) {
                Group target = g;
                onControl(() -> reconcile(target));
            }
            return TransmitResult.QUEUED;
        }
        counters.droppedNoRoute.increment();
        return TransmitResult.DROPPED_NO_ROUTE;
    }

    /** §10's third and fourth branches for a group that does not exist. */
    private TransmitResult viaAllRouters(IpoibLink via, boolean ipv6, boolean beyondLinkLocal, int etherType,
                                         MemorySegment packet, boolean allRoutersAllowed) {
        if (!allRoutersAllowed || !beyondLinkLocal) {
            counters.droppedNoRoute.increment();
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        Destination routers = allRoutersDestination(ipv6);
        TransmitResult r = route(via, routers.mgid(), ipv6, false, routers.address(), etherType, packet, false);
        if (!r.isDrop()) {
            counters.viaAllRouters.increment();
        }
        return r;
    }

    private Destination allRoutersDestination(boolean ipv6) {
        InetAddress routers = Destination.allRouters(ipv6);
        Destination d = destinations.get(routers);
        return d != null ? d : destination(routers);
    }

    private static MemorySegment copy(MemorySegment packet) {
        byte[] bytes = new byte[(int) packet.byteSize()];
        MemorySegment copy = MemorySegment.ofArray(bytes);
        MemorySegment.copy(packet, 0, copy, 0, bytes.length);
        return copy;
    }

    // =====================================================================================================
    // Link changes (control thread)
    // =====================================================================================================

    void onLinkChange(IpoibLink changed, LinkListener.Change change) {
        if (closed) {
            return;
        }
        link = changed;
        switch (change) {
            case UP -> onUp();
            case DOWN -> onDown("link went DOWN");
            case MULTICAST_RESET -> onMulticastReset();
            case PATHS_STALE -> {
                // Multicast uses MLIDs, which a LID change leaves alone.
            }
        }
    }

    /** Follows the link's current state (when the manager starts or the link service comes). */
    void syncWithLink() {
        if (link.state() == LinkState.UP) {
            onUp();
        } else if (up) {
            onDown("link is " + link.state());
        }
    }

    private void onUp() {
        IpoibLink l = link;
        if (l.state() != LinkState.UP || l.qpn() == null) {
            return;
        }
        if (up && l.qpn().value() == upQpn) {
            return;
        }
        if (up) {
            onDown("link came UP again");
        }
        Port port = l.port();
        Gid self = l.gid();
        if (port == null || self == null) {
            return; // DOWN again already: its DOWN follows
        }
        SubnetAdministrator admin;
        try {
            admin = port.subnetAdministrator();
        } catch (RuntimeException e) {
            env.warn(name + ": no subnet administrator on the port: " + e.getMessage());
            return;
        }
        epoch++;
        upQpn = l.qpn().value();
        sa = admin;
        portGid = self;
        Mgid bcast = l.broadcastGid();
        if (!bcast.equals(broadcastGid)) {
            rederive(bcast);
        }
        broadcastRecord = l.broadcastGroup();
        up = true;
        // Subscribe first: a group created between a lookup and the subscription would go unseen.
        traps = env.traps().attach(admin, this, retryCount, false);
        if (broadcastRecord == null) {
            fetchBroadcastRecord(epoch);
        }
        scheduleAudit(epoch);
        for (Group g : new ArrayList<>(groups.values())) {
            reconcile(g);
        }
        if (routerMode) {
            enumerateForRouter();
        }
    }

    /** The broadcast group's parameters, from the SA when the link does not give them. */
    private void fetchBroadcastRecord(int e) {
        Mgid bcast = broadcastGid;
        call(() -> sa.group(bcast), (found, failure) -> {
            if (e != epoch) {
                return;
            }
            if (failure == null && found.isPresent()) {
                broadcastRecord = found.get();
                for (Group g : new ArrayList<>(groups.values())) {
                    reconcile(g);
                }
            } else {
                logFailure("query of the broadcast group " + bcast + " failed: "
                        + (failure != null ? describe(failure) : "no such group") + "; listener joins wait for it");
                schedule(() -> {
                    if (e == epoch) {
                        fetchBroadcastRecord(e);
                    }
                }, Backoff.MAX_MILLIS);
            }
        });
    }

    /**
     * The P_Key or the scope of the link changed: every MGID is derived again from the new
     * broadcast-GID (§4). Listener groups carry over with their listeners; the rest is forgotten.
     */
    private void rederive(Mgid bcast) {
        List<Group> old = new ArrayList<>(groups.values());
        groups.clear();
        destinations.clear();
        broadcastGid = bcast;
        for (Group g : old) {
            retire(g, counters.droppedLinkDown);
            if (g.listeners.isEmpty()) {
                failWaiters(g, "the link's broadcast-GID changed");
                continue;
            }
            Destination d = Destination.of(g.address, bcast);
            Group moved = groups.computeIfAbsent(d.mgid(), m -> new Group(m, d.ipv6(), g.address));
            g.listeners.forEach((ip, n) -> moved.listeners.merge(ip, n, Integer::sum));
            moved.listenerWaiters.addAll(g.listenerWaiters);
            g.listenerWaiters.clear();
        }
        env.info(name + ": broadcast-GID is now " + bcast + "; multicast MGIDs derived again");
    }

    /** DOWN: joins and routes are void; queued frames are freed and counted; listeners stay. */
    private void onDown(String why) {
        if (!up) {
            return;
        }
        up = false;
        upQpn = -1;
        epoch++;
        SubnetAdministrator admin = sa;
        Gid self = portGid;
        for (Group g : new ArrayList<>(groups.values())) {
            JoinState had = g.held;
            resetGroup(g, counters.droppedLinkDown);
            if (had != null && admin != null) {
                // Leave at the SA when it can still hear us (e.g. the P_Key was removed): the port
                // would otherwise stay a member, and keep a FullMember group alive.
                leaveAtSa(admin, g.mgid, self, had, null);
            }
            if (g.listeners.isEmpty()) {
                forget(g);
            }
        }
        env.traps().detach(traps, this);
        traps = null;
        sa = null;
        broadcastRecord = null;
        env.info(name + ": multicast joins forgotten (" + why + ")");
    }

    /**
     * The SM forgot the port's joins (client re-register, SM change): every group is joined
     * again, the trap subscriptions renewed, the groups' existence asked again.
     */
    private void onMulticastReset() {
        if (!up) {
            onUp();
            return;
        }
        epoch++;
        IpoibLink l = link;
        for (Group g : new ArrayList<>(groups.values())) {
            if (g.held != null) {
                attachment.removeMulticastGroup(g.mgid);
            }
            boolean framesWaiting;
            synchronized (g) {
                framesWaiting = !g.queue.isEmpty();
            }
            resetGroup(g, null);
            synchronized (g) {
                g.sendWanted = framesWaiting;
            }
            if (g.idle()) {
                forget(g);
            }
        }
        McMemberRecord rejoined = l.broadcastGroup();
        if (rejoined != null) {
            broadcastRecord = rejoined; // its MLID may be new
        }
        traps = env.traps().attach(sa, this, retryCount, true);
        scheduleAudit(epoch);
        for (Group g : new ArrayList<>(groups.values())) {
            reconcile(g);
        }
        if (routerMode) {
            enumerateForRouter();
        }
        env.info(name + ": multicast groups joined again after a multicast reset");
    }

    /** Back to "nothing known, nothing held": timers off, answers in flight stale, queue freed when counted. */
    private void resetGroup(Group g, java.util.concurrent.atomic.LongAdder dropCounter) {
        cancelTimer(g);
        g.token++;
        g.phase = Group.Phase.IDLE;
        g.requested = null;
        g.lookupInFlight = false;
        g.lookupGeneration++;
        completeExistence(g, Group.Existence.UNKNOWN);
        g.sendable = false;
        g.held = null;
        g.record = null;
        g.existence = Group.Existence.UNKNOWN;
        g.failures = 0;
        g.leaveFailures = 0;
        if (dropCounter != null) {
            synchronized (g) {
                dropCounter.add(g.queue.size());
                g.queue.clear();
                g.sendWanted = false;
            }
        }
        for (CompletableFuture<Void> w : g.leaveWaiters) {
            w.complete(null);
        }
        g.leaveWaiters.clear();
    }

    // =====================================================================================================
    // The join state machine (control thread)
    // =====================================================================================================

    /** Brings the group's membership to what is wanted of it, one SA request at a time. */
    void reconcile(Group g) {
        if (closed || groups.get(g.mgid) != g) {
            return;
        }
        if (!up) {
            synchronized (g) {
                counters.droppedLinkDown.add(g.queue.size());
                g.queue.clear();
                g.sendWanted = false;
            }
            return;
        }
        if (g.phase != Group.Phase.IDLE) {
            return;
        }
        JoinState want = g.wanted();
        JoinState have = g.held;
        if (want == have) {
            if (want != null && !g.sendable) {
                drain(g);
            }
            if (want == null && g.idle() && g.existence == Group.Existence.UNKNOWN) {
                forget(g);
            }
            return;
        }
        if (want == null) {
            leave(g, have);
            return;
        }
        if (want == JoinState.SEND_ONLY_NON_MEMBER) {
            if (have != null) {
                // Any membership sends: nothing to join.
                drain(g);
                return;
            }
            // §10 asks the SA whether the group exists; the SendOnlyNonMember join is that question
            // (a missing group answers ERR_REQ_INVALID from OpenSM, ERR 1B10, or
            // ERR_REQ_INSUFFICIENT_COMPONENTS from older SAs) and needs no visibility of
            // other members, which an SA hides from an untrusted requester's group query.
            if (g.existence == Group.Existence.ABSENT) {
                reroute(g);
            } else {
                join(g, want, null);
            }
            return;
        }
        if (want == JoinState.FULL_MEMBER && broadcastRecord == null) {
            return; // the create template is being fetched; reconciled when it comes
        }
        join(g, want, have);
    }

    /**
     * §10: "check with the SA ... for a MCMemberRecord that matches the MGID", for an egress
     * decision asked without a frame (sending joins at once instead).
     */
    private void lookup(Group g) {
        if (g.lookupInFlight) {
            return;
        }
        g.lookupInFlight = true;
        counters.lookups.increment();
        int lg = ++g.lookupGeneration;
        int e = epoch;
        Mgid mgid = g.mgid;
        call(() -> sa.group(mgid), (found, failure) -> {
            if (e != epoch || lg != g.lookupGeneration || groups.get(mgid) != g) {
                return;
            }
            g.lookupInFlight = false;
            if (failure != null) {
                logFailure(name + ": lookup of " + g.mgid + describeAddress(g) + " failed: " + describe(failure));
                completeExistence(g, Group.Existence.UNKNOWN);
                return;
            }
            if (found.isPresent()) {
                g.existence = Group.Existence.EXISTS;
            } else {
                markAbsent(g);
            }
            completeExistence(g, g.existence);
            reconcile(g);
        });
    }

    /** A join in {@code want}; on success the old membership {@code have} is left (make before break). */
    private void join(Group g, JoinState want, JoinState have) {
        g.phase = Group.Phase.JOINING;
        g.requested = want;
        int t = ++g.token;
        int e = epoch;
        Mgid mgid = g.mgid;
        Gid self = portGid;
        McMemberRecord template = want == JoinState.FULL_MEMBER ? createTemplate(mgid) : null;
        call(() -> template != null ? sa.create(template) : sa.join(mgid, self, want), (record, failure) -> {
            if (e != epoch || t != g.token || groups.get(mgid) != g) {
                if (failure == null && e == epoch && g.held != want && g.requested != want && g.wanted() != want) {
                    // Joined after all, but nobody wants that membership any more: leave it again.
                    leaveAtSa(sa, mgid, self, want, null);
                }
                return;
            }
            g.phase = Group.Phase.IDLE;
            g.requested = null;
            if (failure == null) {
                onJoined(g, want, have, record);
            } else if (want != JoinState.FULL_MEMBER && absentForNonFullJoin(failure)) {
                onGroupAbsent(g, want);
            } else {
                onJoinFailed(g, want, describe(failure));
            }
        });
    }

    /**
     * The group is created, if it does not exist, with the broadcast group's P_Key, Q_Key, SL,
     * MTU, rate, flow label, hop limit and traffic class (§10).
     */
    private McMemberRecord createTemplate(Mgid mgid) {
        McMemberRecord b = broadcastRecord;
        return new McMemberRecord(mgid, portGid, b.qkey(), Lid.UNASSIGNED, b.mtu(), b.trafficClass(), b.pkey(),
                b.rate(), b.packetLifetime(), b.serviceLevel(), b.flowLabel(), b.hopLimit(), JoinState.FULL_MEMBER,
                false);
    }

    private void onJoined(Group g, JoinState want, JoinState have, McMemberRecord record) {
        try {
            attachment.addMulticastGroup(record, want.receives());
        } catch (RuntimeException e) {
            // The link is going DOWN under us (its DOWN follows), or the attach failed (§12). The
            // link dropped the group's route, so a membership held before is no use either.
            leaveAtSa(sa, g.mgid, portGid, want, null);
            if (have != null) {
                leaveAtSa(sa, g.mgid, portGid, have, null);
                synchronized (g) {
                    g.sendable = false;
                }
                g.held = null;
                g.record = null;
            }
            onJoinFailed(g, want, "the link could not use the group: " + e.getMessage());
            return;
        }
        if (have != null && have != want) {
            leaveAtSa(sa, g.mgid, portGid, have, null);
        }
        g.held = want;
        g.record = record;
        g.existence = Group.Existence.EXISTS;
        g.failures = 0;
        counters.joins.increment();
        completeExistence(g, Group.Existence.EXISTS);
        env.info(name + ": joined " + g.mgid + describeAddress(g) + " as " + want + " (MLID " + record.mlid() + ")");
        env.postEvent(IpoibEvents.GROUP_JOINED, event(g, IpoibEvents.JOIN_STATE, want.toString()));
        drain(g);
        if (want == JoinState.FULL_MEMBER) {
            GroupInfo info = info(g);
            for (Group.ListenerWaiter w : g.listenerWaiters) {
                w.future().complete(info);
            }
            g.listenerWaiters.clear();
        }
        reconcile(g);
    }

    /** Sends the queued frames in order, then opens the lock-free path; under the monitor so no frame overtakes. */
    private void drain(Group g) {
        IpoibLink l = link;
        synchronized (g) {
            for (Group.QueuedFrame f; (f = g.queue.poll()) != null; ) {
                TransmitResult r = l.sendMulticast(g.mgid, f.etherType(), f.packet());
                if (!r.isDrop()) {
                    counters.sentAfterJoin.increment();
                }
            }
            g.sendWanted = false;
            g.sendable = g.held != null;
        }
    }

    /** A join without create found no group: it was deleted, or never existed. */
    private void onGroupAbsent(Group g, JoinState want) {
        markAbsent(g);
        g.failures = 0;
        completeExistence(g, Group.Existence.ABSENT);
        // Not a failure of the fabric: §10's next branch (all-routers or drop) takes the frames.
        env.info(name + ": " + want + " join of " + g.mgid + describeAddress(g) + ": the group does not exist");
        if (want == JoinState.NON_MEMBER) {
            g.routerWanted = false;
        }
        reroute(g); // the absence stays cached (§10) until trap 66 says otherwise
    }

    /**
     * A join (or lookup) failed (§12: logged, rate-limited, and an event). Queued frames are
     * freed. Listener and router joins retry for as long as they are wanted; a send-only join
     * gives up after the link's retry count and rests for the longest backoff, dropping frames.
     */
    private void onJoinFailed(Group g, JoinState want, String why) {
        g.failures++;
        counters.joinFailures.increment();
        long backoff = Backoff.afterFailure(g.failures, retryCount);
        boolean giveUp = want == JoinState.SEND_ONLY_NON_MEMBER && g.failures >= retryCount;
        int failures = g.failures;
        synchronized (g) {
            // The phase first: a sender that sees the frames freed must also see the rest (or the retry).
            if (giveUp) {
                g.failures = 0;
                g.existence = Group.Existence.UNKNOWN;
                backOff(g, Group.Phase.HOLDOFF, backoff);
            } else {
                backOff(g, Group.Phase.RETRY_WAIT, backoff);
            }
            counters.droppedJoinFailed.add(g.queue.size());
            g.queue.clear();
            g.sendWanted = false;
        }
        logFailure(name + ": " + want + " join of " + g.mgid + describeAddress(g) + " failed (attempt " + failures
                + "): " + why + (giveUp ? "; frames to it are dropped for " + backoff / 1000 + " s"
                : "; retrying in " + backoff / 1000 + " s"));
        env.postEvent(IpoibEvents.GROUP_JOIN_FAILED, event(g, IpoibEvents.REASON, why));
        if (want == JoinState.FULL_MEMBER) {
            // §12: the failure goes back to the IP level. A listener still waiting after the link's
            // retry count of attempts was never joined: it is removed and its join fails. Listeners
            // the port had joined before (a re-join after DOWN or a reset) stay, and are retried for.
            for (var it = g.listenerWaiters.iterator(); it.hasNext(); ) {
                Group.ListenerWaiter w = it.next();
                if (failures - w.failuresBefore() >= retryCount) {
                    it.remove();
                    g.listeners.computeIfPresent(w.address(), (ip, n) -> n > 1 ? n - 1 : null);
                    w.future().completeExceptionally(new IllegalStateException("FullMember join of " + g.mgid
                            + describeAddress(g) + " on " + name + " failed " + retryCount + " times: " + why));
                }
            }
        }
    }

    private void backOff(Group g, Group.Phase phase, long millis) {
        g.phase = phase;
        int t = g.token;
        int e = epoch;
        g.timerDueNanos = System.nanoTime() + millis * 1_000_000L;
        g.timer = schedule(() -> {
            if (e != epoch || t != g.token || g.phase != phase) {
                return;
            }
            g.timer = null;
            g.phase = Group.Phase.IDLE;
            reconcile(g);
        }, millis);
    }

    /** Leaves: the link stops using the group first, then the SA is told. */
    private void leave(Group g, JoinState have) {
        g.phase = Group.Phase.LEAVING;
        int t = ++g.token;
        int e = epoch;
        attachment.removeMulticastGroup(g.mgid);
        synchronized (g) {
            g.sendable = false;
        }
        g.held = null;
        g.record = null;
        leaveAtSa(sa, g.mgid, portGid, have, failure -> {
            if (e != epoch || t != g.token) {
                return;
            }
            g.phase = Group.Phase.IDLE;
            if (failure == null || notAMember(failure)) {
                g.leaveFailures = 0;
                counters.leaves.increment();
                env.info(name + ": left " + g.mgid + describeAddress(g) + " (" + have + ")");
                env.postEvent(IpoibEvents.GROUP_LEFT, event(g, IpoibEvents.JOIN_STATE, have.toString()));
                for (CompletableFuture<Void> w : g.leaveWaiters) {
                    w.complete(null);
                }
                g.leaveWaiters.clear();
                reconcile(g);
                return;
            }
            // The SA still counts the port: try again (a FullMember left behind keeps the group alive).
            g.leaveFailures++;
            counters.leaveFailures.increment();
            long backoff = Backoff.afterFailure(g.leaveFailures, retryCount);
            logFailure(name + ": leave of " + g.mgid + describeAddress(g) + " (" + have + ") failed (attempt "
                    + g.leaveFailures + "): " + describe(failure)
                    + (g.leaveFailures < retryCount ? "; retrying in " + backoff / 1000 + " s" : "; giving up"));
            if (g.leaveFailures < retryCount && g.wanted() == null) {
                g.held = have; // still a member as far as the SA knows
                backOff(g, Group.Phase.RETRY_WAIT, backoff);
            } else {
                g.leaveFailures = 0;
                for (CompletableFuture<Void> w : g.leaveWaiters) {
                    w.complete(null);
                }
                g.leaveWaiters.clear();
                reconcile(g);
            }
        });
    }

    /** A leave at the SA; the outcome goes to {@code then} on the control thread (or nowhere). */
    private void leaveAtSa(SubnetAdministrator admin, Mgid mgid, Gid self, JoinState state, Consumer<Throwable> then) {
        if (admin == null || self == null) {
            if (then != null) {
                then.accept(null);
            }
            return;
        }
        call(() -> admin.leave(mgid, self, state), (ignored, failure) -> {
            if (then != null) {
                then.accept(failure);
            }
        });
    }

    /** Frames queued for a group that does not exist take §10's next branch. */
    private void reroute(Group g) {
        List<Group.QueuedFrame> frames;
        synchronized (g) {
            frames = new ArrayList<>(g.queue);
            g.queue.clear();
            g.sendWanted = false;
        }
        IpoibLink l = link;
        for (Group.QueuedFrame f : frames) {
            viaAllRouters(l, f.ipv6(), f.beyondLinkLocal(), f.etherType(), f.packet(), true);
        }
    }

    // =====================================================================================================
    // Traps and router mode (control thread)
    // =====================================================================================================

    /** Whether an MGID is an IPoIB group of this link: its signature, P_Key and scope (§4). */
    private boolean ofThisLink(Mgid mgid) {
        Mgid bcast = broadcastGid;
        return MulticastMapping.isIpoibMgid(mgid) && !MulticastMapping.isBroadcastGid(mgid)
                && MulticastMapping.pKey(mgid) == MulticastMapping.pKey(bcast) && mgid.scope() == bcast.scope();
    }

    void onTrap(GroupTrap trap) {
        if (closed || !up) {
            return;
        }
        Mgid mgid = trap.mgid();
        Group g = groups.get(mgid);
        if (trap.type() == GroupTrap.Type.CREATED) {
            if (g == null && routerMode && ofThisLink(mgid) && groups.size() < env.maxGroups()) {
                g = groups.computeIfAbsent(mgid, m -> new Group(m, isIpv6(m), addressOf(m)));
            }
            if (g == null) {
                return;
            }
            counters.trapsCreated.increment();
            g.existence = Group.Existence.EXISTS;
            completeExistence(g, Group.Existence.EXISTS);
            if (routerMode && ofThisLink(mgid)) {
                g.routerWanted = true;
            }
            if (g.phase == Group.Phase.HOLDOFF) {
                // The group is there now: frames need not wait out the rest.
                cancelTimer(g);
                g.phase = Group.Phase.IDLE;
            }
            reconcile(g);
            return;
        }
        if (g == null) {
            return;
        }
        counters.trapsDeleted.increment();
        groupGone(g, "group deleted (trap 67)");
    }

    /** The group was deleted: its MLID and the port's membership are gone with it. */
    private void groupGone(Group g, String why) {
        Mgid mgid = g.mgid;
        if (g.held != null) {
            attachment.removeMulticastGroup(mgid);
            Map<String, Object> props = event(g, IpoibEvents.JOIN_STATE, g.held.toString());
            props.put(IpoibEvents.REASON, why);
            env.postEvent(IpoibEvents.GROUP_LEFT, props);
        }
        if (g.phase == Group.Phase.JOINING && g.requested != JoinState.FULL_MEMBER) {
            // The answer may be about the deleted group; a create, though, makes the group anew.
            g.token++;
            g.phase = Group.Phase.IDLE;
            g.requested = null;
        }
        synchronized (g) {
            g.sendable = false;
        }
        g.held = null;
        g.record = null;
        g.routerWanted = false;
        markAbsent(g);
        completeExistence(g, Group.Existence.ABSENT);
        if (!g.listeners.isEmpty()) {
            reconcile(g); // listeners still want it: create it again
            return;
        }
        reroute(g);
        if (g.idle()) {
            forget(g);
        }
    }

    void setRouterMode(boolean enabled) {
        if (routerMode == enabled) {
            return;
        }
        routerMode = enabled;
        env.info(name + ": router mode " + (enabled ? "on" : "off"));
        if (enabled) {
            if (up) {
                enumerateForRouter();
            }
            return;
        }
        routerFailures = 0;
        for (Group g : new ArrayList<>(groups.values())) {
            if (g.routerWanted) {
                g.routerWanted = false;
                reconcile(g);
            }
        }
    }

    boolean routerMode() {
        return routerMode;
    }

    /**
     * §11 A and B: NonMember joins of every IPoIB group of this link the SA lists, and of the
     * groups the cache knows to exist (a GetTable answer without RMPP may be cut short).
     */
    private void enumerateForRouter() {
        int e = epoch;
        for (Group g : new ArrayList<>(groups.values())) {
            if (g.existence == Group.Existence.EXISTS || g.held != null) {
                g.routerWanted = true;
                reconcile(g);
            }
        }
        call(() -> sa.groups(), (records, failure) -> {
            if (e != epoch || !routerMode) {
                return;
            }
            if (failure != null) {
                routerFailures++;
                long backoff = Backoff.afterFailure(routerFailures, retryCount);
                logFailure(name + ": router mode cannot list the multicast groups: " + describe(failure)
                        + "; retrying in " + backoff / 1000 + " s");
                schedule(() -> {
                    if (e == epoch && routerMode) {
                        enumerateForRouter();
                    }
                }, backoff);
                return;
            }
            routerFailures = 0;
            for (McMemberRecord r : records) {
                Mgid mgid = r.mgid();
                if (!ofThisLink(mgid)) {
                    continue;
                }
                Group g = groups.get(mgid);
                if (g == null) {
                    if (groups.size() >= env.maxGroups()) {
                        logFailure(name + ": router mode cannot follow " + mgid + ": the group table is full ("
                                + env.maxGroups() + ")");
                        continue;
                    }
                    g = groups.computeIfAbsent(mgid, m -> new Group(m, isIpv6(m), addressOf(m)));
                }
                g.existence = Group.Existence.EXISTS;
                g.routerWanted = true;
                reconcile(g);
            }
        });
    }

    private static boolean isIpv6(Mgid mgid) {
        return MulticastMapping.family(mgid) == MulticastMapping.Family.IPV6;
    }

    /** The IPv4 group an MGID maps (fully recoverable); IPv6 keeps only 80 bits, so null. */
    private static InetAddress addressOf(Mgid mgid) {
        return isIpv6(mgid) ? null : MulticastMapping.ipv4Group(mgid);
    }

    // =====================================================================================================
    // Listeners, decisions, snapshots (control thread)
    // =====================================================================================================

    /** Adds a listener; the stage completes when the port is a FullMember. */
    CompletableFuture<GroupInfo> joinListener(InetAddress address) {
        Destination d = Destination.of(address, broadcastGid);
        Group g = groups.get(d.mgid());
        if (g == null) {
            if (groups.size() >= env.maxGroups()) {
                return CompletableFuture.failedFuture(new IllegalStateException("the group table of " + name
                        + " is full (" + env.maxGroups() + " groups)"));
            }
            g = groups.computeIfAbsent(d.mgid(), m -> new Group(m, d.ipv6(), address));
        }
        g.listeners.merge(address, 1, Integer::sum);
        if (g.address == null) {
            g.address = address;
        }
        CompletableFuture<GroupInfo> result = new CompletableFuture<>();
        if (g.held == JoinState.FULL_MEMBER) {
            result.complete(info(g));
        } else {
            g.listenerWaiters.add(new Group.ListenerWaiter(address, result, g.failures));
            reconcile(g);
        }
        return result;
    }

    /** Removes a listener; the stage completes when the last one's leave is done. */
    CompletableFuture<Void> leaveListener(InetAddress address) {
        Destination d = Destination.of(address, broadcastGid);
        Group g = groups.get(d.mgid());
        Integer n = g == null ? null : g.listeners.get(address);
        if (n == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no listener of " + Destination.text(address)
                    + " on " + name));
        }
        if (n > 1) {
            g.listeners.put(address, n - 1);
            return CompletableFuture.completedFuture(null);
        }
        g.listeners.remove(address);
        if (!g.listeners.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        failWaiters(g, "the last listener left before the join completed");
        CompletableFuture<Void> result = new CompletableFuture<>();
        if (g.held == JoinState.FULL_MEMBER || g.phase == Group.Phase.JOINING || g.phase == Group.Phase.LEAVING) {
            g.leaveWaiters.add(result);
        } else {
            result.complete(null);
        }
        if (g.phase == Group.Phase.RETRY_WAIT) {
            cancelTimer(g);
            g.phase = Group.Phase.IDLE;
        }
        reconcile(g);
        return result;
    }

    /** The egress decision §10 takes now; may ask the SA whether the group (or all-routers) exists. */
    CompletableFuture<EgressDecision> decide(Mgid mgid, boolean ipv6, boolean beyondLinkLocal) {
        if (!up) {
            return CompletableFuture.completedFuture(EgressDecision.DROP);
        }
        Group g = groupForDecision(mgid, ipv6);
        if (g == null) {
            return CompletableFuture.completedFuture(EgressDecision.DROP);
        }
        if (g.held != null) {
            return CompletableFuture.completedFuture(EgressDecision.SEND);
        }
        return existence(g).thenCompose(e -> {
            if (e == Group.Existence.EXISTS) {
                return CompletableFuture.completedFuture(EgressDecision.JOIN_SEND_ONLY_THEN_SEND);
            }
            if (e == Group.Existence.UNKNOWN || !beyondLinkLocal) {
                return CompletableFuture.completedFuture(EgressDecision.DROP);
            }
            Group routers = groupForDecision(allRoutersDestination(ipv6).mgid(), ipv6);
            if (routers == null) {
                return CompletableFuture.completedFuture(EgressDecision.DROP);
            }
            if (routers.held != null) {
                return CompletableFuture.completedFuture(EgressDecision.SEND_TO_ALL_ROUTERS);
            }
            return existence(routers).thenApply(r -> r == Group.Existence.EXISTS ? EgressDecision.SEND_TO_ALL_ROUTERS
                    : EgressDecision.DROP);
        });
    }

    /** The decision for an MGID: the IP scope comes from the MGID for IPv4, from a seen group for IPv6. */
    CompletableFuture<EgressDecision> decide(Mgid mgid) {
        if (!MulticastMapping.isIpoibMgid(mgid) || MulticastMapping.isBroadcastGid(mgid)) {
            Group g = groups.get(mgid);
            return CompletableFuture.completedFuture(up && (g != null && g.held != null || mgid.equals(broadcastGid))
                    ? EgressDecision.SEND : EgressDecision.DROP);
        }
        boolean ipv6 = isIpv6(mgid);
        Group g = groups.get(mgid);
        InetAddress address = ipv6 ? (g == null ? null : g.address) : MulticastMapping.ipv4Group(mgid);
        return decide(mgid, ipv6, address != null && Destination.beyondLinkLocal(address));
    }

    CompletableFuture<EgressDecision> decide(InetAddress group) {
        Destination d = Destination.of(group, broadcastGid);
        return decide(d.mgid(), d.ipv6(), d.beyondLinkLocal());
    }

    private Group groupForDecision(Mgid mgid, boolean ipv6) {
        Group g = groups.get(mgid);
        if (g == null && groups.size() < env.maxGroups()) {
            g = groups.computeIfAbsent(mgid, m -> new Group(m, ipv6, ipv6 ? null : MulticastMapping.ipv4Group(m)));
        }
        return g;
    }

    /** Whether a group exists: from the cache, else from the SA (one lookup for every asker). */
    private CompletableFuture<Group.Existence> existence(Group g) {
        if (g.existence != Group.Existence.UNKNOWN) {
            return CompletableFuture.completedFuture(g.existence);
        }
        CompletableFuture<Group.Existence> f = new CompletableFuture<>();
        g.existenceWaiters.add(f);
        lookup(g);
        return f;
    }

    private void completeExistence(Group g, Group.Existence e) {
        for (CompletableFuture<Group.Existence> w : g.existenceWaiters) {
            w.complete(e);
        }
        g.existenceWaiters.clear();
    }

    List<GroupInfo> snapshot() {
        List<GroupInfo> out = new ArrayList<>();
        IpoibLink l = link;
        if (up) {
            McMemberRecord b = broadcastRecord;
            out.add(new GroupInfo(name, broadcastGid, ipv4(LIMITED_BROADCAST), b == null ? null : b.mlid(),
                    JoinState.FULL_MEMBER,
                    GroupOrigin.BROADCAST, 0, 0, "JOINED by the link (" + l.state() + ")"));
        }
        List<Group> sorted = new ArrayList<>(groups.values());
        sorted.sort(Comparator.comparing(g -> g.mgid.toString()));
        for (Group g : sorted) {
            out.add(info(g));
        }
        return out;
    }

    private GroupInfo info(Group g) {
        McMemberRecord r = g.record;
        GroupOrigin origin = !g.listeners.isEmpty() ? GroupOrigin.LISTENER
                : g.routerWanted || g.held == JoinState.NON_MEMBER ? GroupOrigin.ROUTER : GroupOrigin.SEND_ONLY;
        return new GroupInfo(name, g.mgid, g.address, r == null ? null : r.mlid(), g.held, origin, g.listenerCount(),
                g.queued(), stateText(g));
    }

    private String stateText(Group g) {
        if (!up) {
            return "WAITING for the link to come UP";
        }
        long dueSeconds = Math.max(0, (g.timerDueNanos - System.nanoTime() + 999_999_999L) / 1_000_000_000L);
        return switch (g.phase) {
            case JOINING -> "JOINING as " + g.requested;
            case LEAVING -> "LEAVING";
            case RETRY_WAIT -> "RETRY in " + dueSeconds + " s (" + g.failures + " failed)";
            case HOLDOFF -> "FAILED, frames dropped for " + dueSeconds + " s";
            case IDLE -> g.lookupInFlight ? "LOOKUP"
                    : g.held != null ? "JOINED"
                    : switch (g.existence) {
                        case EXISTS -> "EXISTS (not joined)";
                        case ABSENT -> "ABSENT (frames go to all-routers beyond link-local, else dropped)";
                        case UNKNOWN -> "UNKNOWN";
                    };
        };
    }

    private static InetAddress ipv4(byte[] octets) {
        try {
            return InetAddress.getByAddress(octets);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    // =====================================================================================================
    // Shutdown (control thread)
    // =====================================================================================================

    /** The link service is gone, or the manager stops: leave every group, free everything. */
    void close() {
        if (closed) {
            return;
        }
        IpoibLink l = link;
        SubnetAdministrator admin = sa;
        Gid self = portGid;
        for (Group g : new ArrayList<>(groups.values())) {
            JoinState had = g.held;
            if (had != null) {
                try {
                    attachment.removeMulticastGroup(g.mgid);
                } catch (RuntimeException ignored) {
                    // The link is closing too.
                }
                leaveAtSa(admin, g.mgid, self, had, null);
            }
            resetGroup(g, counters.droppedLinkDown);
            failWaiters(g, "the multicast manager of " + name + " stopped");
            forget(g);
        }
        closed = true;
        up = false;
        env.traps().detach(traps, this);
        traps = null;
    }

    // =====================================================================================================
    // Helpers
    // =====================================================================================================

    private static void markAbsent(Group g) {
        g.absentSinceNanos = System.nanoTime();
        g.existence = Group.Existence.ABSENT;
    }

    // =====================================================================================================
    // Audit (control thread)
    // =====================================================================================================

    /**
     * Traps can be lost (an SM restart, a full queue): a group created meanwhile would stay
     * "absent", a deleted one "joined", and traffic would go astray without a word. Every audit
     * period the manager forgets what it learned of absent groups long ago (the next frame asks
     * again), and joins its send-only and NonMember groups again (an idempotent request that
     * finds a deleted group, or one created anew under another MLID).
     */
    private void audit(int e) {
        if (e != epoch || !up) {
            return;
        }
        long now = System.nanoTime();
        long maxAge = env.auditMillis() * 1_000_000L;
        for (Group g : new ArrayList<>(groups.values())) {
            if (g.existence == Group.Existence.ABSENT && g.idle() && now - g.absentSinceNanos >= maxAge) {
                forget(g);
                continue;
            }
            JoinState held = g.held;
            if ((held == JoinState.SEND_ONLY_NON_MEMBER || held == JoinState.NON_MEMBER) && g.phase == Group.Phase.IDLE) {
                verify(g, held);
            }
        }
        scheduleAudit(e);
    }

    private void verify(Group g, JoinState held) {
        int t = g.token;
        int e = epoch;
        Mgid mgid = g.mgid;
        Gid self = portGid;
        McMemberRecord before = g.record;
        call(() -> sa.join(mgid, self, held), (record, failure) -> {
            if (e != epoch || t != g.token || groups.get(mgid) != g || g.held != held || g.phase != Group.Phase.IDLE) {
                return;
            }
            if (failure != null) {
                if (noSuchGroup(failure)) {
                    counters.auditRepairs.increment();
                    logFailure(name + ": " + mgid + describeAddress(g) + " is gone though no trap 67 told; "
                            + held + " membership forgotten");
                    groupGone(g, "group gone (found by the audit)");
                }
                return;
            }
            if (before != null && !record.mlid().equals(before.mlid())) {
                counters.auditRepairs.increment();
                logFailure(name + ": " + mgid + describeAddress(g) + " was created anew (MLID " + before.mlid() + " → "
                        + record.mlid() + ") though no trap told; following it");
                try {
                    attachment.addMulticastGroup(record, held.receives());
                    g.record = record;
                } catch (RuntimeException x) {
                    groupGone(g, "cannot use the group's new MLID: " + x.getMessage());
                }
            }
        });
    }

    private void scheduleAudit(int e) {
        schedule(() -> audit(e), env.auditMillis());
    }

    /** Removes a group from the maps; a sender holding it looks again. */
    private void forget(Group g) {
        groups.remove(g.mgid, g);
        retire(g, null);
    }

    private void retire(Group g, java.util.concurrent.atomic.LongAdder dropCounter) {
        cancelTimer(g);
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

    private void failWaiters(Group g, String why) {
        for (Group.ListenerWaiter w : g.listenerWaiters) {
            w.future().completeExceptionally(new IllegalStateException(why));
        }
        g.listenerWaiters.clear();
        for (CompletableFuture<Void> w : g.leaveWaiters) {
            w.complete(null);
        }
        g.leaveWaiters.clear();
    }

    private static void cancelTimer(Group g) {
        if (g.timer != null) {
            g.timer.cancel(false);
            g.timer = null;
        }
    }

    private Map<String, Object> event(Group g, String key, String value) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put(IpoibEvents.LINK, name);
        props.put(IpoibEvents.MGID, g.mgid.toString());
        props.put(key, value);
        if (g.address != null) {
            props.put(IpoibEvents.ADDRESS, Destination.text(g.address));
        }
        return props;
    }

    private static String describeAddress(Group g) {
        return g.address == null ? "" : " (" + Destination.text(g.address) + ")";
    }

    /** §12: every failure of a multicast operation is logged, at most one message per 5 s per link. */
    private void logFailure(String message) {
        long suppressed = failureLog.tryAcquire();
        if (suppressed >= 0) {
            env.warn(message + (suppressed > 0 ? " (" + suppressed + " similar messages suppressed)" : ""));
        }
    }

    /**
     * A leave the SA refuses because the port is no member (any more): the group was deleted, or
     * the SM forgot the join. OpenSM answers ERR_REQ_INVALID to both; older SAs ERR_NO_RECORDS.
     * Leaving again would not help: the membership is gone.
     */
    private static boolean notAMember(Throwable failure) {
        Throwable cause = unwrap(failure);
        return noSuchGroup(cause) || cause instanceof SaException sa && !sa.isTimeout()
                && sa.status() == SaStatus.REQUEST_INVALID;
    }

    /**
     * A non-full join of a group that does not exist: OpenSM 3.3.23 checks the join state before
     * the components and answers ERR_REQ_INVALID (ERR 1B10, osm_sa_mcmember_record.c:1249); older
     * SAs answer insufficient components or no records.
     */
    private static boolean absentForNonFullJoin(Throwable failure) {
        Throwable cause = unwrap(failure);
        return noSuchGroup(cause) || cause instanceof SaException sa && !sa.isTimeout() && !sa.isLocalFailure()
                && sa.status() == SaStatus.REQUEST_INVALID;
    }

    private static boolean noSuchGroup(Throwable failure) {
        Throwable cause = unwrap(failure);
        return cause instanceof SaException sa && !sa.isTimeout()
                && (sa.status() == SaStatus.INSUFFICIENT_COMPONENTS || sa.status() == SaStatus.NO_RECORDS);
    }

    private String describe(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof TimeoutException) {
            return "no answer within " + joinTimeoutMillis + " ms";
        }
        return String.valueOf(cause.getMessage());
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The outcome of an SA request, on the control thread. */
    @FunctionalInterface
    private interface Outcome<T> {
        void accept(T value, Throwable failure);
    }

    /**
     * Issues an SA request with the link's join timeout and hands its outcome to the control
     * thread. A provider that is going away may throw instead of failing the stage: same outcome.
     */
    private <T> void call(java.util.function.Supplier<CompletionStage<T>> request, Outcome<T> outcome) {
        CompletableFuture<T> stage;
        try {
            stage = request.get().toCompletableFuture().orTimeout(joinTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((value, failure) -> onControl(() -> outcome.accept(value, failure)));
    }

    private void onControl(Runnable task) {
        try {
            env.control().execute(() -> {
                if (!closed) {
                    task.run();
                }
            });
        } catch (RejectedExecutionException stopping) {
            // The manager is stopping: what was under way is dropped with it.
        }
    }

    private java.util.concurrent.ScheduledFuture<?> schedule(Runnable task, long millis) {
        try {
            return env.control().schedule(() -> {
                if (!closed) {
                    task.run();
                }
            }, millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "multicast groups of " + name;
    }
}
