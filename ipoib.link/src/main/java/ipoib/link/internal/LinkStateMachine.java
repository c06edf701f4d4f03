package ipoib.link.internal;

import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.PKey;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.Backoff;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.RateLimiter;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The DOWN → JOINING → UP state machine of RFC 4391 §5 for one link: bound to a verbs provider,
 * it finds the device, port and P_Key index, joins the broadcast group ({@link BroadcastJoin}),
 * builds the UP period's {@link LinkResources}, retries a failed join with Linux's backoff, and
 * tears the period down again. Reactions to the port's events are {@link PortEventReactions}.
 * Every method runs on the link's control loop (the provider callbacks post themselves there).
 */
final class LinkStateMachine {
    private final LinkEngine link;
    private final LinkConfig config;
    private final LinkHooks hooks;
    private final ControlLoop control;
    private final LinkStatus status;
    private final BroadcastJoin join;
    private final UpPeriodTimers timers;
    private final PortEventReactions reactions;
    private final RateLimiter joinErrorLog;

    // Written on the control loop only.
    private VerbsProvider provider;
    private Port port;
    private AutoCloseable portSubscription;
    /** Counts UP-period attempts: an answer for an earlier attempt is ignored. */
    private int generation;
    private int joinFailures;
    private Cancellable retry;
    private boolean closed;
    /** The broadcast scope in use: the configured one, or the one the scope search found. */
    private volatile int scopeInUse;

    LinkStateMachine(LinkEngine link, LinkConfig config, LinkHooks hooks, ControlLoop control, LinkStatus status) {
        this.link = link;
        this.config = config;
        this.hooks = hooks;
        this.control = control;
        this.status = status;
        this.scopeInUse = config.scope();
        this.join = new BroadcastJoin(config, control, hooks::info);
        this.timers = new UpPeriodTimers(control, config, hooks, link.stats, status::resources);
        this.reactions = new PortEventReactions(this, join, link);
        this.joinErrorLog = new RateLimiter(control.clock(), 5, TimeUnit.SECONDS);
    }

    int scopeInUse() {
        return scopeInUse;
    }

    /** The bound provider's name, or "-". */
    String providerName() {
        VerbsProvider p = provider;
        return p == null ? "-" : p.name();
    }

    /** The port watched (set once the device and port were found), or null. */
    Port port() {
        return port;
    }

    int generation() {
        return generation;
    }

    boolean closed() {
        return closed;
    }

    // ---- provider binding (from the component) --------------------------------------------------------

    void providerAvailable(VerbsProvider p) {
        control.execute(() -> {
            if (provider == p) {
                return;
            }
            if (provider != null) {
                goDown("verbs provider " + provider.name() + " replaced by " + p.name(), false);
                unsubscribePort();
            }
            provider = p;
            hooks.postEvent(IpoibEvents.PROVIDER_ADDED, Map.of(IpoibEvents.LINK, config.name(), IpoibEvents.PROVIDER,
                    p.name()));
            bringUp();
        });
    }

    void providerGone(VerbsProvider p) {
        // Synchronous: the provider's resources must be released before its bundle stops.
        runAndWait(() -> {
            if (provider != p) {
                return;
            }
            goDown("verbs provider " + p.name() + " went away", false);
            unsubscribePort();
            provider = null;
            hooks.postEvent(IpoibEvents.PROVIDER_REMOVED, Map.of(IpoibEvents.LINK, config.name(),
                    IpoibEvents.PROVIDER, p.name()));
        });
    }

    /** Stops for good: DOWN, resources freed, the port no longer watched. Waits for the loop. */
    void close() {
        runAndWait(() -> {
            goDown("interface removed", false);
            unsubscribePort();
            closed = true;
        });
    }

    // ---- coming up ----------------------------------------------------------------------------------

    void bringUp() {
        cancelRetry();
        if (closed || status.state() != LinkState.DOWN) {
            return;
        }
        if (provider == null) {
            status.set(LinkState.DOWN, "no verbs provider");
            return;
        }
        Device device = provider.device(config.device()).orElse(null);
        if (device == null) {
            String known = provider.devices().stream().map(Device::name).collect(Collectors.joining(", "));
            status.set(LinkState.DOWN, "device " + config.device() + " not found on provider " + provider.name()
                    + (known.isEmpty() ? " (" + provider.status().reason() + ")" : " (devices: " + known + ")"));
            return;
        }
        Port p;
        try {
            p = device.port(config.port());
        } catch (VerbsException e) {
            status.set(LinkState.DOWN, e.getMessage());
            return;
        }
        if (port != p) {
            unsubscribePort();
            port = p;
            try {
                portSubscription = p.addEventListener(reactions::onPortEvent);
            } catch (RuntimeException e) {
                status.set(LinkState.DOWN, "cannot watch port " + describe(p) + ": " + e.getMessage());
                return;
            }
        }
        if (!p.attributes().isActive()) {
            // A port the SM has not swept yet has no LID (IBA 14.2.5.6): say so, not only its state.
            status.set(LinkState.DOWN, "port " + describe(p) + " is " + p.attributes().state()
                    + (p.attributes().lid().value() == 0 ? ", no LID yet: the subnet manager has not swept it" : ""));
            return;
        }
        OptionalInt index = p.pkeyTable().indexOfPartition(config.pkey());
        if (index.isEmpty()) {
            status.set(LinkState.DOWN, "P_Key " + config.pkey() + " is not in the P_Key table of port " + describe(p)
                    + " " + p.pkeyTable());
            return;
        }
        status.set(LinkState.JOINING, "joining the broadcast group");
        int gen = ++generation;
        int pkeyIndex = index.getAsInt();
        int pkeyValue = p.pkeyTable().get(pkeyIndex).map(PKey::value).orElse(0);
        long joinStarted = link.history.broadcastJoins.start();
        join.join(p).whenComplete((record, failure) -> control.execute(() -> {
            if (gen != generation || closed) {
                return;
            }
            if (failure != null) {
                onJoinFailed(BroadcastJoin.unwrap(failure));
            } else {
                link.history.broadcastJoins.observeSince(joinStarted);
                onJoined(p, pkeyIndex, pkeyValue, record);
            }
        }));
    }

    private void onJoined(Port p, int pkeyIndex, int pkeyValue, McMemberRecord record) {
        LinkResources r;
        try {
            r = new LinkResources(link, p, pkeyIndex, pkeyValue, record, config);
        } catch (RuntimeException e) {
            onJoinFailed(e);
            return;
        }
        joinFailures = 0;
        scopeInUse = record.mgid().scope();
        status.resources(r);
        status.set(LinkState.UP, "joined " + record.mgid() + " (MLID " + record.mlid() + ", Q_Key " + record.qkey()
                + ", MTU " + record.mtu() + ")");
        hooks.info(config.name() + " UP: QPN " + r.qpn + ", link MTU " + r.mtu + ", Q_Key " + r.qkey + ", broadcast "
                + record.mgid());
        timers.start();
        link.applyMode(r);
        hooks.notifyListeners(link, LinkListener.Change.UP);
    }

    /**
     * Stays JOINING and tries again after Linux's join backoff (1 s doubling to 16 s, the doublings
     * bounded by mcastRetryCount; ipoib_multicast.c), warning at most once per 5 s.
     */
    private void onJoinFailed(Throwable cause) {
        joinFailures++;
        long backoff = Backoff.IPOIB_JOIN.afterFailure(joinFailures, config.joinRetryCount());
        String why = cause instanceof TimeoutException
                ? "no answer within " + config.joinTimeoutMillis() + " ms"
                : String.valueOf(cause.getMessage());
        status.set(LinkState.JOINING, "broadcast join failed (attempt " + joinFailures + "): " + why + "; retrying in "
                + backoff / 1000.0 + " s");
        long suppressed = joinErrorLog.tryAcquire();
        if (suppressed >= 0) {
            hooks.warn(config.name() + ": " + status.reason()
                    + (suppressed > 0 ? " (" + suppressed + " similar messages suppressed)" : ""), null);
        }
        retry = control.schedule(this::joinAgain, backoff, TimeUnit.MILLISECONDS);
    }

    /** A JOINING link starts its join over (the retry timer, or a client re-register while joining). */
    void joinAgain() {
        if (status.state() == LinkState.JOINING) {
            status.quietlyDown();
            bringUp();
        }
    }

    // ---- going down ---------------------------------------------------------------------------------

    /** Down with the reason and up again at once; just up when nothing is running. */
    void restart(String why) {
        if (status.state() == LinkState.DOWN && status.resources() == null) {
            bringUp();
            return;
        }
        goDown(why, true);
    }

    /** Releases the UP period's resources; with {@code retryNow}, tries to come up again at once. */
    void goDown(String why, boolean retryNow) {
        generation++;
        cancelRetry();
        timers.stop();
        LinkResources r = status.resources();
        status.resources(null);
        boolean wasUp = status.state() == LinkState.UP;
        status.set(LinkState.DOWN, why);
        if (r != null) {
            r.close();
            leaveBroadcast(r);
        }
        if (wasUp) {
            link.history.flaps.increment();
            hooks.notifyListeners(link, LinkListener.Change.DOWN);
        }
        if (retryNow && !closed) {
            bringUp();
        }
    }

    private static void leaveBroadcast(LinkResources r) {
        try {
            if (r.port.attributes().isActive()) {
                r.port.subnetAdministrator().leave(r.broadcast().mgid(), r.gid, JoinState.FULL_MEMBER);
            }
        } catch (RuntimeException e) {
            // The provider is going away: the SM drops the membership with the port.
        }
    }

    private void cancelRetry() {
        if (retry != null) {
            retry.cancel();
            retry = null;
        }
    }

    private void unsubscribePort() {
        if (portSubscription != null) {
            try {
                portSubscription.close();
            } catch (Exception ignored) {
                // The provider is gone with its listeners.
            }
            portSubscription = null;
        }
        port = null;
    }

    /** Runs the task on the loop and waits: DS callbacks that must see the change applied. */
    private void runAndWait(Runnable task) {
        try {
            control.run(task, 10, TimeUnit.SECONDS);
        } catch (IllegalStateException e) {
            hooks.error(config.name() + ": control task failed: " + e.getMessage(), e);
        }
    }

    static String describe(Port p) {
        return p.device().name() + "/" + p.number();
    }
}
