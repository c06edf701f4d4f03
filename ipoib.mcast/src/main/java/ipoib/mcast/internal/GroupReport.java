package ipoib.mcast.internal;

import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.GroupOrigin;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** What {@code ipoib:mcast} shows of one link's groups (control loop only): each group and its state in words. */
final class GroupReport {
    private final LinkContext ctx;

    GroupReport(LinkContext ctx) {
        this.ctx = ctx;
    }

    List<GroupInfo> snapshot() {
        List<GroupInfo> out = new ArrayList<>();
        if (ctx.up) {
            McMemberRecord b = ctx.broadcastRecord;
            out.add(new GroupInfo(ctx.name, ctx.broadcastGid, InetAddress.ofLiteral("255.255.255.255"),
                    b == null ? null : b.mlid(), JoinState.FULL_MEMBER, GroupOrigin.BROADCAST, 0, 0,
                    "JOINED by the link (" + ctx.link.state() + ")"));
        }
        List<Group> sorted = ctx.table.all();
        sorted.sort(Comparator.comparing(g -> g.mgid.toString()));
        for (Group g : sorted) {
            out.add(info(g));
        }
        return out;
    }

    GroupInfo info(Group g) {
        McMemberRecord r = g.record;
        GroupOrigin origin = !g.listeners.isEmpty() ? GroupOrigin.LISTENER
                : g.routerWanted || g.held == JoinState.NON_MEMBER ? GroupOrigin.ROUTER : GroupOrigin.SEND_ONLY;
        return new GroupInfo(ctx.name, g.mgid, g.address, r == null ? null : r.mlid(), g.held, origin,
                g.listenerCount(), g.queued(), stateText(g));
    }

    private String stateText(Group g) {
        if (!ctx.up) {
            return "WAITING for the link to come UP";
        }
        long dueSeconds = Math.max(0, (g.timerDueNanos - ctx.nowNanos() + 999_999_999L) / 1_000_000_000L);
        return switch (g.phase) {
            case JOINING -> "JOINING as " + g.requested + (g.failures > 0 ? " (" + g.failures + " failed)" : "");
            case LEAVING -> "LEAVING";
            case RETRY_WAIT -> "RETRY in " + dueSeconds + " s (" + g.failures + " failed"
                    + (g.lastFailure != null ? ", last: " + g.lastFailure : "") + ")";
            case HOLDOFF -> "FAILED, frames dropped for " + dueSeconds + " s"
                    + (g.lastFailure != null ? " (" + g.lastFailure + ")" : "");
            case IDLE -> g.lookupInFlight ? "LOOKUP"
                    : g.held != null ? "JOINED"
                    : switch (g.existence) {
                        case EXISTS -> "EXISTS (not joined)";
                        case ABSENT -> "ABSENT (frames go to all-routers beyond link-local, else dropped)";
                        case UNKNOWN -> g.listeners.isEmpty() || ctx.broadcastRecord != null ? "UNKNOWN"
                                : "WAITING for the broadcast group's parameters";
                    };
        };
    }
}
