package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.sa.SaCapabilities;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.runtime.Backoff;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.DurationHistogram;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.Reporter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the parts of one link's multicast manager share: the link and its SA as of the last UP,
 * the epoch that makes answers of an earlier UP stale, the group table, counters, settings, the
 * control loop and the reporter. Written on the control loop only; the fields senders read are
 * volatile.
 */
final class LinkContext {
    final String name;
    final McastCounters counters = new McastCounters();
    /** From a join's request to the membership, for the joins that succeeded ({@code /metrics}). */
    final DurationHistogram joinTimes;
    final GroupTable table;
    final ControlLoop control;
    final Reporter reporter;
    final SaRequests requests;
    /** The link's {@code mcastRetryCount}: doublings of the backoff, and a send-only join's attempts. */
    final int retryCount;
    private final Supplier<McastSettings> settings;
    private final RateLimiter failureLog;

    volatile IpoibLink link;
    final MulticastAttach attach;
    /** The link is UP and its SA known: joins may go out. */
    volatile boolean up;
    volatile Mgid broadcastGid;

    // Control loop only.
    /** Changes with every UP, DOWN and multicast reset: an answer of an earlier epoch is stale. */
    int epoch;
    SubnetAdministrator sa;
    Gid portGid;
    /** The broadcast group's parameters: the template of the groups listeners create (§10). */
    McMemberRecord broadcastRecord;
    /**
     * What the SA of this UP said it supports (ClassPortInfo); null while the question is open,
     * {@link #NO_CAPABILITIES} when it could not be answered.
     */
    SaCapabilities capabilities;
    /** Senders' copy: a send-only join creates the group, so a group cached as absent is joined too. */
    volatile boolean sendOnlyCreates;
    boolean routerMode;
    boolean closed;

    LinkContext(MulticastAttachment attachment, int joinTimeoutMillis, int retryCount, ControlLoop control,
                Reporter reporter, Supplier<McastSettings> settings) {
        IpoibLink link = attachment.link();
        this.name = link.name();
        this.link = link;
        this.attach = new MulticastAttach(attachment);
        this.broadcastGid = link.broadcastGid();
        this.retryCount = retryCount;
        this.control = control;
        this.joinTimes = new DurationHistogram(control.clock(), DurationHistogram.SA_EXCHANGE_SECONDS);
        this.reporter = reporter;
        this.settings = settings;
        this.requests = new SaRequests(control, joinTimeoutMillis, () -> closed);
        this.table = new GroupTable(this);
        this.failureLog = new RateLimiter(control.clock(), 5, TimeUnit.SECONDS);
    }

    McastSettings settings() {
        return settings.get();
    }

    /** What an SA that did not answer ClassPortInfo is taken to support: nothing optional. */
    static final SaCapabilities NO_CAPABILITIES = new SaCapabilities(0, 0, 0);

    /**
     * The membership a sender takes: the one place it is chosen. SendOnlyFullMember (JoinState
     * 0x8, which creates the group and keeps it while the sender is a member) when the SA
     * advertises it in ClassPortInfo's CapabilityMask2 (bit 12), as Linux's ipoib_multicast.c
     * chose it from 2016 ({@code ipoib_mcast_join}: {@code SENDONLY_FULLMEMBER_JOIN} when
     * {@code priv->sm_fullmember_sendonly_support}, which {@code ipoib_mcast_carrier_on_task}
     * takes from {@code ib_sa_sendonly_fullmem_support}) until the check was dropped in 2021
     * ("IB/core: Remove Subnet Manager sendonly join checks"; since then Linux always asks for
     * SendOnlyFullMember); else SendOnlyNonMember (IBA 1.2.1 §15.2.5.17, RFC 4391 §10). Linux
     * fell back to a FullMember join instead, which also receives the group's traffic; RFC 4391's
     * send-only membership does not. Until the SA's answer is in, {@link #capabilitiesKnown()}
     * holds send-only joins back.
     */
    JoinState sendOnlyState() {
        return capabilities != null && capabilities.sendOnlyFullMember() ? JoinState.SEND_ONLY_FULL_MEMBER
                : JoinState.SEND_ONLY_NON_MEMBER;
    }

    /** Whether the SA's capabilities are known (or known to be unavailable) for this UP. */
    boolean capabilitiesKnown() {
        return capabilities != null;
    }

    /** Sets what the SA supports (null: the question is open again). */
    void capabilities(SaCapabilities caps) {
        capabilities = caps;
        sendOnlyCreates = caps != null && caps.sendOnlyFullMember();
    }

    /** Whether a join in this state creates the group when it is missing (needs the create components). */
    static boolean creates(JoinState state) {
        return state == JoinState.FULL_MEMBER || state == JoinState.SEND_ONLY_FULL_MEMBER;
    }

    /** Whether a held membership only sends (the sender's own, not a listener's or a router's). */
    static boolean isSendOnly(JoinState held) {
        return held != null && !held.receives();
    }

    /** The wait before the next attempt after {@code failures} consecutive failures. */
    long backoffMillis(int failures) {
        return Backoff.IPOIB_JOIN.afterFailure(failures, retryCount);
    }

    long nowNanos() {
        return control.clock().nanoTime();
    }

    /** Runs a task on the control loop after a delay, unless the manager of the link closed meanwhile. */
    Cancellable schedule(Runnable task, long millis) {
        return control.schedule(() -> {
            if (!closed) {
                task.run();
            }
        }, millis, TimeUnit.MILLISECONDS);
    }

    /** Runs a task on the control loop soon, unless the manager of the link closed meanwhile. */
    void execute(Runnable task) {
        control.execute(() -> {
            if (!closed) {
                task.run();
            }
        });
    }

    /** A leave at the SA; the outcome goes to {@code then} on the control loop (or nowhere). */
    void leaveAtSa(SubnetAdministrator admin, Mgid mgid, Gid self, JoinState state, Consumer<Throwable> then) {
        if (admin == null || self == null) {
            if (then != null) {
                then.accept(null);
            }
            return;
        }
        requests.<Void>call(() -> admin.leave(mgid, self, state), (ignored, failure) -> {
            if (then != null) {
                then.accept(failure);
            }
        });
    }

    /** §12: every failure of a multicast operation is logged, at most one message per 5 s per link. */
    void logFailure(String message) {
        long suppressed = failureLog.tryAcquire();
        if (suppressed >= 0) {
            reporter.warn(message + (suppressed > 0 ? " (" + suppressed + " similar messages suppressed)" : ""));
        }
    }

    Map<String, Object> event(Group g, String key, String value) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put(IpoibEvents.LINK, name);
        props.put(IpoibEvents.MGID, g.mgid.toString());
        props.put(key, value);
        if (g.address != null) {
            props.put(IpoibEvents.ADDRESS, Destination.text(g.address));
        }
        return props;
    }

    static String describeAddress(Group g) {
        return g.address == null ? "" : " (" + Destination.text(g.address) + ")";
    }
}
