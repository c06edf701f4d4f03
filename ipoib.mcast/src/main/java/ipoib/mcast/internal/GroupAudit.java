package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.runtime.Cancellable;

/**
 * The periodic audit of one link's groups against the SA (control loop only). Traps can be lost
 * (an SM restart, a full queue): a group created meanwhile would stay "absent", a deleted one
 * "joined", and traffic would go astray without a word. Every audit forgets every absence the
 * link learned (the next frame asks the SA again), so a group created unseen is reached at most
 * one audit period plus one join after its creation; and it joins the send-only and NonMember
 * groups again (an idempotent request that finds a deleted group, or one created anew under
 * another MLID).
 */
final class GroupAudit {
    private final LinkContext ctx;
    private final TrapFollower traps;
    private Cancellable timer = Cancellable.NONE;
    /** When the running period began, on the control loop's clock. */
    private long periodStartNanos;
    private boolean running;

    GroupAudit(LinkContext ctx, TrapFollower traps) {
        this.ctx = ctx;
        this.traps = traps;
    }

    /** Starts the periods anew (UP, multicast reset). */
    void start() {
        running = true;
        periodStartNanos = ctx.nowNanos();
        schedule(ctx.settings().auditMillis());
    }

    void stop() {
        running = false;
        timer.cancel();
        timer = Cancellable.NONE;
    }

    /**
     * The audit period changed: the running period ends at its start plus the new period (at once
     * when that is past), so that a shorter period takes effect without waiting out the old one.
     */
    void periodChanged() {
        if (!running) {
            return;
        }
        long elapsedMillis = (ctx.nowNanos() - periodStartNanos) / 1_000_000L;
        schedule(Math.max(0, ctx.settings().auditMillis() - elapsedMillis));
    }

    private void schedule(long millis) {
        timer.cancel();
        int e = ctx.epoch;
        timer = ctx.schedule(() -> {
            if (e == ctx.epoch && ctx.up && running) {
                audit();
            }
        }, millis);
    }

    private void audit() {
        for (Group g : ctx.table.all()) {
            if (g.existence == Group.Existence.ABSENT && g.idle()) {
                ctx.table.forget(g);
                continue;
            }
            JoinState held = g.held;
            if ((LinkContext.isSendOnly(held) || held == JoinState.NON_MEMBER) && g.phase == Group.Phase.IDLE) {
                verify(g, held);
            }
        }
        start();
    }

    private void verify(Group g, JoinState held) {
        int t = g.token;
        int e = ctx.epoch;
        Mgid mgid = g.mgid;
        Gid self = ctx.portGid;
        McMemberRecord before = g.record;
        var admin = ctx.sa;
        ctx.requests.<McMemberRecord>call(() -> admin.join(mgid, self, held), (record, failure) -> {
            if (e != ctx.epoch || t != g.token || !ctx.table.holds(g) || g.held != held || g.phase != Group.Phase.IDLE) {
                return;
            }
            if (failure != null) {
                if (held == JoinState.FULL_MEMBER ? SaRequests.noSuchGroup(failure)
                        : SaRequests.absentForNonFullJoin(failure)) {
                    ctx.counters.auditRepairs.increment();
                    ctx.logFailure(ctx.name + ": " + mgid + LinkContext.describeAddress(g)
                            + " is gone though no trap 67 told; " + held + " membership forgotten");
                    traps.groupGone(g, "group gone (found by the audit)");
                }
                return;
            }
            if (before != null && !record.mlid().equals(before.mlid())) {
                ctx.counters.auditRepairs.increment();
                ctx.logFailure(ctx.name + ": " + mgid + LinkContext.describeAddress(g) + " was created anew (MLID "
                        + before.mlid() + " → " + record.mlid() + ") though no trap told; following it");
                try {
                    ctx.attach.attach(record, held.receives());
                    g.record = record;
                } catch (RuntimeException x) {
                    traps.groupGone(g, "cannot use the group's new MLID: " + x.getMessage());
                }
            }
        });
    }
}
