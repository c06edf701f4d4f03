package ipoib.mcast.internal;

import ipoib.api.JoinState;
import ipoib.api.mcast.GroupInfo;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;

/**
 * Local listeners of IP groups on one link (control loop only): the first listener of a group
 * makes the port a FullMember, creating the group when needed; the last one's leave makes the
 * port leave. Which listeners exist is the engine's record ({@link ListenerBook}); this class
 * brings the link's groups to it.
 */
final class ListenerJoins {
    private final LinkContext ctx;
    private final JoinMachine machine;
    private final GroupReport report;

    ListenerJoins(LinkContext ctx, JoinMachine machine, GroupReport report) {
        this.ctx = ctx;
        this.machine = machine;
        this.report = report;
    }

    /** Adds a listener; the stage completes when the port is a FullMember. */
    CompletableFuture<GroupInfo> join(InetAddress address) {
        Group g = add(address, 1);
        if (g == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("the group table of " + ctx.name
                    + " is full (" + ctx.settings().maxGroups() + " groups)"));
        }
        CompletableFuture<GroupInfo> result = new CompletableFuture<>();
        if (g.held == JoinState.FULL_MEMBER) {
            result.complete(report.info(g));
        } else {
            g.listenerWaiters.add(new Group.ListenerWaiter(address, result));
            machine.reconcile(g);
        }
        return result;
    }

    /** Listeners the engine kept while the link's service was away: joined again, nobody waits. */
    void restore(InetAddress address, int count) {
        Group g = add(address, count);
        if (g == null) {
            ctx.logFailure(ctx.name + ": listeners of " + Destination.text(address) + " not restored: the group table is full ("
                    + ctx.settings().maxGroups() + " groups)");
            return;
        }
        machine.reconcile(g);
    }

    private Group add(InetAddress address, int count) {
        Destination d = Destination.of(address, ctx.broadcastGid);
        Group g = ctx.table.getOrCreate(d.mgid(), d.ipv6(), address);
        if (g == null) {
            return null;
        }
        g.listeners.merge(address, count, Integer::sum);
        if (g.address == null) {
            g.address = address;
        }
        return g;
    }

    /** Removes a listener; the stage completes when the last one's leave is done. */
    CompletableFuture<Void> leave(InetAddress address) {
        Destination d = Destination.of(address, ctx.broadcastGid);
        Group g = ctx.table.get(d.mgid());
        Integer n = g == null ? null : g.listeners.get(address);
        if (n == null) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no listener of "
                    + Destination.text(address) + " on " + ctx.name));
        }
        if (n > 1) {
            g.listeners.put(address, n - 1);
            return CompletableFuture.completedFuture(null);
        }
        g.listeners.remove(address);
        if (!g.listeners.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        JoinMachine.failWaiters(g, "the last listener left before the join completed");
        CompletableFuture<Void> result = new CompletableFuture<>();
        if (g.held == JoinState.FULL_MEMBER || g.phase == Group.Phase.JOINING || g.phase == Group.Phase.LEAVING) {
            g.leaveWaiters.add(result);
        } else {
            result.complete(null);
        }
        if (g.phase == Group.Phase.RETRY_WAIT) {
            g.cancelTimer();
            g.phase = Group.Phase.IDLE;
        }
        machine.reconcile(g);
        return result;
    }
}
