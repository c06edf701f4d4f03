package ipoib.mcast.internal;

import ipoib.runtime.Cancellable;

/**
 * Leaves the send-only memberships nobody sends with any more (control loop only), as Linux
 * does: {@code __ipoib_reap_neigh} (ipoib_main.c) runs every {@code arp_tbl.gc_interval} (30 s)
 * and, for a neighbour idle for two such periods, {@code ipoib_check_and_add_mcast_sendonly}
 * (ipoib_multicast.c) removes a send-only group and {@code ipoib_mcast_remove_list} leaves it. A
 * SendOnlyFullMember keeps its group alive at the SA, so it must not stay a member forever.
 *
 * <p>A sweep runs every half of the idle time ({@code sendOnlyIdleSeconds}); a send-only
 * membership that saw no frame during two sweeps in a row is left. The next frame joins again.
 */
final class SendOnlyReaper {
    /** Sweeps without a frame after which a send-only membership is left (Linux: two GC periods). */
    static final int IDLE_SWEEPS = 2;

    private final LinkContext ctx;
    private final JoinMachine machine;
    private Cancellable timer = Cancellable.NONE;

    SendOnlyReaper(LinkContext ctx, JoinMachine machine) {
        this.ctx = ctx;
        this.machine = machine;
    }

    /** Starts the sweeps (UP, multicast reset). */
    void start() {
        schedule();
    }

    void stop() {
        timer.cancel();
        timer = Cancellable.NONE;
    }

    private void schedule() {
        timer.cancel();
        int e = ctx.epoch;
        timer = ctx.schedule(() -> {
            if (e == ctx.epoch && ctx.up) {
                sweep();
                schedule();
            }
        }, Math.max(1, ctx.settings().sendOnlyIdleMillis() / IDLE_SWEEPS));
    }

    private void sweep() {
        for (Group g : ctx.table.all()) {
            if (!LinkContext.isSendOnly(g.held) || g.phase != Group.Phase.IDLE) {
                g.idleSweeps = 0;
                continue;
            }
            if (g.takeSent()) {
                g.idleSweeps = 0;
            } else if (++g.idleSweeps >= IDLE_SWEEPS) {
                g.idleSweeps = 0;
                g.sendOnlyUnused = true;
                ctx.counters.sendOnlyIdleLeaves.increment();
                ctx.reporter.info(ctx.name + ": " + g.held + " membership of " + g.mgid
                        + LinkContext.describeAddress(g) + " unused for " + JoinMachine.seconds(
                        ctx.settings().sendOnlyIdleMillis()) + "; leaving it");
                machine.reconcile(g);
            }
        }
    }
}
