package ipoib.mcast.internal;

import ipoib.api.metrics.HistogramSample;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The multicast groups of one link (RFC 4391 §10, §11): the parts, wired. {@link Egress} is the
 * send path (any thread); everything else runs on the control loop: {@link JoinMachine},
 * {@link LinkLifecycle}, {@link TrapFollower}, {@link RouterMode}, {@link ListenerJoins},
 * {@link GroupAudit}, {@link SendOnlyReaper}, {@link EgressDecisions} and {@link GroupReport}, sharing one
 * {@link LinkContext}.
 */
final class LinkGroups {
    final String name;
    private final LinkContext ctx;
    private final Egress egress;
    private final JoinMachine machine;
    private final LinkLifecycle lifecycle;
    private final RouterMode router;
    private final ListenerJoins listeners;
    private final GroupAudit audit;
    private final EgressDecisions decisions;
    private final GroupReport report;

    LinkGroups(MulticastAttachment link, int joinTimeoutMillis, int retryCount, ControlLoop control, Reporter reporter,
               TrapRegistry traps, Supplier<McastSettings> settings) {
        this.name = link.link().name();
        this.ctx = new LinkContext(link, joinTimeoutMillis, retryCount, control, reporter, settings);
        this.report = new GroupReport(ctx);
        this.egress = new Egress(ctx, g -> machine().reconcile(g));
        this.machine = new JoinMachine(ctx, egress, report);
        TrapFollower trapFollower = new TrapFollower(ctx, traps, machine, egress);
        this.router = new RouterMode(ctx, machine);
        this.audit = new GroupAudit(ctx, trapFollower);
        this.lifecycle = new LinkLifecycle(ctx, machine, trapFollower, router, audit,
                new SendOnlyReaper(ctx, machine));
        this.listeners = new ListenerJoins(ctx, machine, report);
        this.decisions = new EgressDecisions(ctx, machine);
    }

    private JoinMachine machine() {
        return machine;
    }

    IpoibLink link() {
        return ctx.link;
    }

    HistogramSample joinTimes() {
        return ctx.joinTimes.snapshot();
    }

    McastCounters counters() {
        return ctx.counters;
    }

    /** §10 for one frame (any thread). */
    TransmitResult send(IpoibLink via, InetAddress group, int etherType, MemorySegment packet) {
        return egress.send(via, group, etherType, packet);
    }

    // Control loop only from here on.

    void syncWithLink() {
        lifecycle.syncWithLink();
    }

    void onLinkChange(IpoibLink changed, LinkListener.Change change) {
        lifecycle.onLinkChange(changed, change);
    }

    CompletableFuture<GroupInfo> joinListener(InetAddress address) {
        return listeners.join(address);
    }

    void restoreListener(InetAddress address, int count) {
        listeners.restore(address, count);
    }

    CompletableFuture<Void> leaveListener(InetAddress address) {
        return listeners.leave(address);
    }

    CompletableFuture<EgressDecision> decide(Mgid mgid) {
        return decisions.decide(mgid);
    }

    CompletableFuture<EgressDecision> decide(InetAddress group) {
        return decisions.decide(group);
    }

    void setRouterMode(boolean enabled) {
        router.set(enabled);
    }

    boolean routerMode() {
        return ctx.routerMode;
    }

    void auditPeriodChanged() {
        audit.periodChanged();
    }

    List<GroupInfo> snapshot() {
        return report.snapshot();
    }

    void close() {
        lifecycle.close();
    }

    @Override
    public String toString() {
        return "multicast groups of " + name;
    }
}
