package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.Port;

/**
 * One link's UP, DOWN and MULTICAST_RESET as the multicast manager follows them (control loop
 * only): UP learns the SA and the broadcast group and joins what is wanted; DOWN voids every join
 * and frees queued frames while listeners stay; a reset joins everything again; a new
 * broadcast-GID derives every MGID anew; close leaves everything.
 */
final class LinkLifecycle {
    private final LinkContext ctx;
    private final JoinMachine machine;
    private final TrapFollower traps;
    private final RouterMode router;
    private final GroupAudit audit;
    private final SendOnlyReaper reaper;
    private int upQpn = -1;
    private int broadcastFailures;

    LinkLifecycle(LinkContext ctx, JoinMachine machine, TrapFollower traps, RouterMode router, GroupAudit audit,
                  SendOnlyReaper reaper) {
        this.ctx = ctx;
        this.machine = machine;
        this.traps = traps;
        this.router = router;
        this.audit = audit;
        this.reaper = reaper;
    }

    void onLinkChange(IpoibLink changed, LinkListener.Change change) {
        if (ctx.closed) {
            return;
        }
        ctx.link = changed;
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
        if (ctx.link.state() == LinkState.UP) {
            onUp();
        } else if (ctx.up) {
            onDown("link is " + ctx.link.state());
        }
    }

    private void onUp() {
        IpoibLink l = ctx.link;
        var qpn = l.qpn(); // read once: the link may go down between two reads
        if (l.state() != LinkState.UP || qpn == null) {
            return;
        }
        if (ctx.up && qpn.value() == upQpn) {
            return;
        }
        if (ctx.up) {
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
            ctx.reporter.warn(ctx.name + ": no subnet administrator on the port: " + e.getMessage());
            return;
        }
        ctx.epoch++;
        upQpn = qpn.value();
        ctx.sa = admin;
        ctx.portGid = self;
        Mgid bcast = l.broadcastGid();
        if (!bcast.equals(ctx.broadcastGid)) {
            rederive(bcast);
        }
        ctx.broadcastRecord = l.broadcastGroup();
        ctx.up = true;
        // Subscribe first: a group created between a lookup and the subscription would go unseen.
        traps.attach(false);
        if (ctx.broadcastRecord == null) {
            broadcastFailures = 0;
            fetchBroadcastRecord(ctx.epoch);
        }
        fetchCapabilities(ctx.epoch);
        audit.start();
        reaper.start();
        reconcileAll();
        router.onUp();
    }

    /**
     * Which send-only membership the SA supports (ClassPortInfo's CapabilityMask2), asked at every
     * UP and multicast reset, as Linux asks after every broadcast join
     * ({@code ipoib_mcast_carrier_on_task}); send-only joins wait for the answer. An SA that does
     * not answer is taken to support nothing optional (Linux: an invalid ClassPortInfo reads as
     * no SendOnlyFullMember support).
     */
    private void fetchCapabilities(int e) {
        ctx.capabilities(null);
        SubnetAdministrator admin = ctx.sa;
        ctx.requests.<ipoib.api.sa.SaCapabilities>call(admin::capabilities, (caps, failure) -> {
            if (e != ctx.epoch) {
                return;
            }
            ctx.capabilities(failure == null ? caps : LinkContext.NO_CAPABILITIES);
            ctx.reporter.info(ctx.name + ": send-only joins are " + ctx.sendOnlyState() + (failure == null
                    ? " (SA CapabilityMask2 0x" + Integer.toHexString(caps.capabilityMask2()) + ")"
                    : " (ClassPortInfo query failed: " + ctx.requests.describe(failure) + ")"));
            reconcileAll();
        });
    }

    private void reconcileAll() {
        for (Group g : ctx.table.all()) {
            machine.reconcile(g);
        }
    }

    /** The broadcast group's parameters, from the SA when the link does not give them. */
    private void fetchBroadcastRecord(int e) {
        Mgid bcast = ctx.broadcastGid;
        SubnetAdministrator admin = ctx.sa;
        ctx.requests.<java.util.Optional<McMemberRecord>>call(() -> admin.group(bcast), (found, failure) -> {
            if (e != ctx.epoch) {
                return;
            }
            if (failure == null && found.isPresent()) {
                ctx.broadcastRecord = found.get();
                reconcileAll();
                return;
            }
            long backoff = ctx.backoffMillis(++broadcastFailures);
            ctx.logFailure(ctx.name + ": query of the broadcast group " + bcast + " failed: "
                    + (failure != null ? ctx.requests.describe(failure) : "no such group")
                    + "; listener joins wait for it; asking again in " + JoinMachine.seconds(backoff));
            ctx.schedule(() -> {
                if (e == ctx.epoch) {
                    fetchBroadcastRecord(e);
                }
            }, backoff);
        });
    }

    /**
     * The P_Key or the scope of the link changed: every MGID is derived again from the new
     * broadcast-GID (§4). Listener groups carry over with their listeners; the rest is forgotten.
     */
    private void rederive(Mgid bcast) {
        var old = ctx.table.clearForNewBroadcastGid();
        ctx.broadcastGid = bcast;
        for (Group g : old) {
            GroupTable.retire(g, ctx.counters.droppedLinkDown);
            if (g.listeners.isEmpty()) {
                JoinMachine.failWaiters(g, "the link's broadcast-GID changed");
                continue;
            }
            Destination d = Destination.of(g.address, bcast);
            Group moved = ctx.table.getOrCreate(d.mgid(), d.ipv6(), g.address);
            if (moved == null) {
                JoinMachine.failWaiters(g, "the group table of " + ctx.name + " is full");
                continue;
            }
            g.listeners.forEach((ip, n) -> moved.listeners.merge(ip, n, Integer::sum));
            moved.listenerWaiters.addAll(g.listenerWaiters);
            g.listenerWaiters.clear();
        }
        ctx.reporter.info(ctx.name + ": broadcast-GID is now " + bcast + "; multicast MGIDs derived again");
    }

    /** DOWN: joins and routes are void; queued frames are freed and counted; listeners stay. */
    private void onDown(String why) {
        if (!ctx.up) {
            return;
        }
        ctx.up = false;
        upQpn = -1;
        ctx.epoch++;
        SubnetAdministrator admin = ctx.sa;
        Gid self = ctx.portGid;
        for (Group g : ctx.table.all()) {
            JoinState had = g.held;
            machine.reset(g, ctx.counters.droppedLinkDown);
            if (had != null && admin != null) {
                // Leave at the SA when it can still hear us (e.g. the P_Key was removed): the port
                // would otherwise stay a member, and keep a FullMember group alive.
                ctx.leaveAtSa(admin, g.mgid, self, had, null);
            }
            if (g.listeners.isEmpty()) {
                ctx.table.forget(g);
            }
        }
        audit.stop();
        reaper.stop();
        traps.detach();
        ctx.sa = null;
        ctx.broadcastRecord = null;
        ctx.capabilities(null);
        ctx.reporter.info(ctx.name + ": multicast joins forgotten (" + why + ")");
    }

    /**
     * The SM forgot the port's joins (client re-register, SM change): every group is joined
     * again, the trap subscriptions renewed, the groups' existence asked again.
     */
    private void onMulticastReset() {
        if (!ctx.up) {
            onUp();
            return;
        }
        ctx.epoch++;
        for (Group g : ctx.table.all()) {
            if (g.held != null) {
                ctx.attach.detach(g.mgid);
            }
            boolean framesWaiting;
            synchronized (g) {
                framesWaiting = !g.queue.isEmpty();
            }
            machine.reset(g, null);
            synchronized (g) {
                g.sendWanted = framesWaiting;
            }
            if (g.idle()) {
                ctx.table.forget(g);
            }
        }
        McMemberRecord rejoined = ctx.link.broadcastGroup();
        if (rejoined != null) {
            ctx.broadcastRecord = rejoined; // its MLID may be new
        }
        traps.attach(true);
        fetchCapabilities(ctx.epoch);
        audit.start();
        reaper.start();
        reconcileAll();
        router.onUp();
        ctx.reporter.info(ctx.name + ": multicast groups joined again after a multicast reset");
    }

    /** The link service is gone, or the manager stops: leave every group, free everything. */
    void close() {
        if (ctx.closed) {
            return;
        }
        SubnetAdministrator admin = ctx.sa;
        Gid self = ctx.portGid;
        for (Group g : ctx.table.all()) {
            JoinState had = g.held;
            if (had != null) {
                ctx.attach.detach(g.mgid);
                ctx.leaveAtSa(admin, g.mgid, self, had, null);
            }
            machine.reset(g, ctx.counters.droppedLinkDown);
            JoinMachine.failWaiters(g, "the multicast manager of " + ctx.name + " stopped");
            ctx.table.forget(g);
        }
        ctx.closed = true;
        ctx.up = false;
        audit.stop();
        reaper.stop();
        traps.detach();
    }
}
