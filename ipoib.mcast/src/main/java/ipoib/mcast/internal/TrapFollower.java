package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.api.event.IpoibEvents;
import ipoib.api.sa.GroupTrap;
import java.util.Map;

/**
 * Traps 66 and 67 as one link follows them (RFC 4391 §10, control loop only): a created group
 * exists now (senders join it, router mode joins it as NonMember); a deleted group takes the
 * port's membership and route with it. The subscriptions are the port's, shared in the
 * {@link TrapRegistry}.
 */
final class TrapFollower {
    private final LinkContext ctx;
    private final TrapRegistry registry;
    private final JoinMachine machine;
    private final Egress egress;
    private TrapRegistry.PortTraps subscription;

    TrapFollower(LinkContext ctx, TrapRegistry registry, JoinMachine machine, Egress egress) {
        this.ctx = ctx;
        this.registry = registry;
        this.machine = machine;
        this.egress = egress;
    }

    /** Joins the port's subscriptions; {@code renew}: the SA may have forgotten them (a client re-register). */
    void attach(boolean renew) {
        subscription = registry.attach(ctx.sa, this, ctx.retryCount, renew);
    }

    void detach() {
        registry.detach(subscription, this);
        subscription = null;
    }

    void onTrap(GroupTrap trap) {
        if (ctx.closed || !ctx.up) {
            return;
        }
        Mgid mgid = trap.mgid();
        Group g = ctx.table.get(mgid);
        boolean routed = ctx.routerMode && ctx.table.ofThisLink(mgid);
        if (trap.type() == GroupTrap.Type.CREATED) {
            if (g == null && routed) {
                g = ctx.table.getOrCreate(mgid);
            }
            if (g == null) {
                return;
            }
            ctx.counters.trapsCreated.increment();
            g.existence = Group.Existence.EXISTS;
            g.completeExistence(Group.Existence.EXISTS);
            if (routed) {
                g.routerWanted = true;
            }
            if (g.phase == Group.Phase.HOLDOFF) {
                // The group is there now: frames need not wait out the rest.
                g.cancelTimer();
                g.phase = Group.Phase.IDLE;
            }
            machine.reconcile(g);
            return;
        }
        if (g == null) {
            return;
        }
        ctx.counters.trapsDeleted.increment();
        groupGone(g, "group deleted (trap 67)");
    }

    /** The group was deleted: its MLID and the port's membership are gone with it. */
    void groupGone(Group g, String why) {
        if (g.held != null) {
            ctx.attach.detach(g.mgid);
            Map<String, Object> props = ctx.event(g, IpoibEvents.JOIN_STATE, g.held.toString());
            props.put(IpoibEvents.REASON, why);
            ctx.reporter.event(IpoibEvents.GROUP_LEFT, props);
        }
        if (g.phase == Group.Phase.JOINING && g.requested != ipoib.api.JoinState.FULL_MEMBER) {
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
        g.markAbsent();
        g.completeExistence(Group.Existence.ABSENT);
        if (!g.listeners.isEmpty()) {
            machine.reconcile(g); // listeners still want it: create it again
            return;
        }
        egress.reroute(g);
        if (g.idle()) {
            ctx.table.forget(g);
        }
    }
}
