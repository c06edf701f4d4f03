package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.api.mcast.EgressDecision;
import ipoib.codec.mcast.MulticastMapping;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The egress decision of RFC 4391 §10 asked without a frame (control loop only): what the send
 * path would do now, asking the SA whether the group (or the all-routers group) exists when the
 * link does not know.
 */
final class EgressDecisions {
    private final LinkContext ctx;
    private final JoinMachine machine;

    EgressDecisions(LinkContext ctx, JoinMachine machine) {
        this.ctx = ctx;
        this.machine = machine;
    }

    CompletableFuture<EgressDecision> decide(InetAddress group) {
        Destination d = Destination.of(group, ctx.broadcastGid);
        return decide(d.mgid(), d.ipv6(), d.beyondLinkLocal());
    }

    /** The decision for an MGID: the IP scope comes from the MGID for IPv4, from a seen group for IPv6. */
    CompletableFuture<EgressDecision> decide(Mgid mgid) {
        if (!MulticastMapping.isIpoibMgid(mgid) || MulticastMapping.isBroadcastGid(mgid)) {
            Group g = ctx.table.get(mgid);
            return done(ctx.up && (g != null && g.held != null || mgid.equals(ctx.broadcastGid))
                    ? EgressDecision.SEND : EgressDecision.DROP);
        }
        boolean ipv6 = GroupTable.isIpv6(mgid);
        Group g = ctx.table.get(mgid);
        InetAddress address = ipv6 ? (g == null ? null : g.address) : MulticastMapping.ipv4Group(mgid);
        return decide(mgid, ipv6, address != null && Destination.beyondLinkLocal(address));
    }

    private CompletableFuture<EgressDecision> decide(Mgid mgid, boolean ipv6, boolean beyondLinkLocal) {
        if (!ctx.up) {
            return done(EgressDecision.DROP);
        }
        Group g = ctx.table.getOrCreate(mgid);
        if (g == null) {
            return done(EgressDecision.DROP);
        }
        if (g.held != null) {
            return done(EgressDecision.SEND);
        }
        if (ctx.sendOnlyCreates) {
            return done(EgressDecision.JOIN_SEND_ONLY_THEN_SEND); // the SendOnlyFullMember join creates it
        }
        return existence(g).thenCompose(e -> {
            if (e == Group.Existence.EXISTS) {
                return done(EgressDecision.JOIN_SEND_ONLY_THEN_SEND);
            }
            if (e == Group.Existence.UNKNOWN || !beyondLinkLocal) {
                return done(EgressDecision.DROP);
            }
            Group routers = ctx.table.getOrCreate(ctx.table.allRouters(ipv6).mgid());
            if (routers == null) {
                return done(EgressDecision.DROP);
            }
            if (routers.held != null) {
                return done(EgressDecision.SEND_TO_ALL_ROUTERS);
            }
            return existence(routers).thenApply(r -> r == Group.Existence.EXISTS ? EgressDecision.SEND_TO_ALL_ROUTERS
                    : EgressDecision.DROP);
        });
    }

    /** Whether a group exists: from the cache, else from the SA (one lookup for every asker). */
    private CompletableFuture<Group.Existence> existence(Group g) {
        if (g.existence != Group.Existence.UNKNOWN) {
            return CompletableFuture.completedFuture(g.existence);
        }
        CompletableFuture<Group.Existence> f = new CompletableFuture<>();
        g.existenceWaiters.add(f);
        machine.lookup(g);
        return f;
    }

    private static CompletableFuture<EgressDecision> done(EgressDecision d) {
        return CompletableFuture.completedFuture(d);
    }
}
