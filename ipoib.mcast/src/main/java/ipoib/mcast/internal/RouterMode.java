package ipoib.mcast.internal;

import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.runtime.Cancellable;
import java.util.List;

/**
 * Router mode of one link (RFC 4391 §11, control loop only): NonMember joins of every IPoIB group
 * of the link, found by listing the SA's groups and by wildcard trap 66 ({@link TrapFollower}).
 */
final class RouterMode {
    private final LinkContext ctx;
    private final JoinMachine machine;
    private int failures;
    private Cancellable retry = Cancellable.NONE;

    RouterMode(LinkContext ctx, JoinMachine machine) {
        this.ctx = ctx;
        this.machine = machine;
    }

    void set(boolean enabled) {
        if (ctx.routerMode == enabled) {
            return;
        }
        ctx.routerMode = enabled;
        ctx.reporter.info(ctx.name + ": router mode " + (enabled ? "on" : "off"));
        if (enabled) {
            if (ctx.up) {
                enumerate();
            }
            return;
        }
        failures = 0;
        retry.cancel();
        for (Group g : ctx.table.all()) {
            if (g.routerWanted) {
                g.routerWanted = false;
                machine.reconcile(g);
            }
        }
    }

    /** The link came UP or its joins were reset: the groups are listed again. */
    void onUp() {
        if (ctx.routerMode) {
            enumerate();
        }
    }

    /**
     * §11 A and B: NonMember joins of every IPoIB group of this link the SA lists, and of the
     * groups the cache knows to exist (a GetTable answer without RMPP may be cut short).
     */
    private void enumerate() {
        int e = ctx.epoch;
        retry.cancel();
        for (Group g : ctx.table.all()) {
            if (g.existence == Group.Existence.EXISTS || g.held != null) {
                g.routerWanted = true;
                machine.reconcile(g);
            }
        }
        var admin = ctx.sa;
        ctx.requests.<List<McMemberRecord>>call(() -> admin.groups(), (records, failure) -> {
            if (e != ctx.epoch || !ctx.routerMode) {
                return;
            }
            if (failure != null) {
                long backoff = ctx.backoffMillis(++failures);
                ctx.logFailure(ctx.name + ": router mode cannot list the multicast groups: "
                        + ctx.requests.describe(failure) + "; retrying in " + JoinMachine.seconds(backoff));
                retry = ctx.schedule(() -> {
                    if (e == ctx.epoch && ctx.routerMode) {
                        enumerate();
                    }
                }, backoff);
                return;
            }
            failures = 0;
            for (McMemberRecord r : records) {
                Mgid mgid = r.mgid();
                if (!ctx.table.ofThisLink(mgid)) {
                    continue;
                }
                Group g = ctx.table.getOrCreate(mgid);
                if (g == null) {
                    ctx.logFailure(ctx.name + ": router mode cannot follow " + mgid + ": the group table is full ("
                            + ctx.settings().maxGroups() + ")");
                    continue;
                }
                g.existence = Group.Existence.EXISTS;
                g.routerWanted = true;
                machine.reconcile(g);
            }
        });
    }
}
