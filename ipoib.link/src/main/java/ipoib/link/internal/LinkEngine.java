package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.LinkAddress;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.VerbsProvider;
import ipoib.codec.mcast.MulticastMapping;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.ThreadControlLoop;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * One IPoIB interface: the DOWN → JOINING → UP state machine of RFC 4391 §5 and its reactions
 * to the fabric. Every state change runs on the link's control thread, in order; the data path
 * (send methods, the receive thread) reads the current {@link LinkResources} without locks.
 *
 * <p>Size (~750 lines): the IpoibLink facade (getters, send, paths) and the state machine still
 * share this class; the broadcast join ({@link BroadcastJoin}), the path cache ({@link PathCache})
 * and the receive side ({@link ReceiveLoop}) are out. Next split: the facade from the state machine.
 */
final class LinkEngine implements IpoibLink {
    private static final long MAX_BACKOFF_MILLIS = 16_000;
    private static final long REAP_MILLIS = 1000;

    final LinkStatistics stats = new LinkStatistics();
    private final LinkConfig config;
    private final LinkHooks hooks;
    private final ControlLoop control;
    private final BroadcastJoin join;
    private final RateLimiter handlerErrorLog;
    private final RateLimiter joinErrorLog;

    // Written on the control thread only.
    private VerbsProvider provider;
    private Port port;
    private AutoCloseable portSubscription;
    private int generation;
    private int joinFailures;
    private Cancellable retry;
    private Cancellable watchdog;
    private Cancellable reaper;
    private int scopeInUse;

    /** The administrative mode: connected (RFC 4755) or datagram (the default). */
    private volatile boolean connectedMode;
    /** Why connected mode does not run although asked for; null when it runs or was not asked for. */
    private volatile String modeProblem;
    private volatile LinkState state = LinkState.DOWN;
    private volatile String reason = "no verbs provider";
    private volatile LinkResources resources;
    private volatile boolean closed;
    /** The running capture, read by the data path per frame; null when none. */
    volatile LinkCapture capture;
    /** The last capture, for its summary after it ended. */
    private volatile LinkCapture lastCapture;

    /** An engine on its own control thread ({@code ipoib-link-<name>}). */
    LinkEngine(LinkConfig config, LinkHooks hooks) {
        this(config, hooks, new ThreadControlLoop("ipoib-link-" + config.name(),
                (message, failure) -> hooks.error(config.name() + ": " + message, failure)));
    }

    /**
     * An engine whose state changes, timers and timeouts run on {@code control} (a manual loop in
     * tests: backoff, join timeouts, the watchdog and the reaper then run without waiting).
     */
    LinkEngine(LinkConfig config, LinkHooks hooks, ControlLoop control) {
        this.config = config;
        this.hooks = hooks;
        this.scopeInUse = config.scope();
        this.control = control;
        this.join = new BroadcastJoin(config, control, hooks::info);
        this.handlerErrorLog = new RateLimiter(control.clock(), 10, TimeUnit.SECONDS);
        this.joinErrorLog = new RateLimiter(control.clock(), 5, TimeUnit.SECONDS);
    }

    ControlLoop control() {
        return control;
    }

    LinkHooks hooks() {
        return hooks;
    }

    LinkConfig config() {
        return config;
    }

    // ---- IpoibLink ---------------------------------------------------------------------------------

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public LinkState state() {
        return state;
    }

    @Override
    public String stateReason() {
        return reason;
    }

    @Override
    public Port port() {
        LinkResources r = resources;
        return r != null ? r.port : port;
    }

    @Override
    public PKey pkey() {
        return config.pkey();
    }

    @Override
    public Mgid broadcastGid() {
        return MulticastMapping.broadcastGid(config.pkey().asFullMember(), scopeInUse);
    }

    @Override
    public LinkAddress address() {
        LinkResources r = resources;
        return r == null ? null : r.address;
    }

    @Override
    public Gid gid() {
        LinkResources r = resources;
        return r == null ? null : r.gid;
    }

    @Override
    public Qpn qpn() {
        LinkResources r = resources;
        return r == null ? null : r.qpn;
    }

    @Override
    public int mtu() {
        LinkResources r = resources;
        return r == null ? 0 : r.connected != null ? ConnectedMode.MTU : r.mtu;
    }

    @Override
    public QKey qkey() {
        LinkResources r = resources;
        return r == null ? null : r.qkey;
    }

    @Override
    public int serviceLevel() {
        LinkResources r = resources;
        return r == null ? 0 : r.serviceLevel;
    }

    @Override
    public McMemberRecord broadcastGroup() {
        LinkResources r = resources;
        return r == null ? null : r.broadcast;
    }

    String providerName() {
        VerbsProvider p = provider;
        return p == null ? "-" : p.name();
    }

    @Override
    public LinkCounters counters() {
        return stats.snapshot();
    }

    @Override
    public Map<String, Long> dropCounters() {
        return stats.drops();
    }

    @Override
    public TransmitResult sendUnicast(LinkPath path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        if (!(path instanceof PathEntry.Reference ref) || ref.released()) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return r.sendUnicast(ref.entry, remoteQpn, etherType, payload);
    }

    @Override
    public TransmitResult sendUnicast(LinkPath path, LinkAddress destination, int etherType, MemorySegment payload) {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        if (!(path instanceof PathEntry.Reference ref) || ref.released()) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return r.sendUnicast(ref.entry, destination, etherType, payload);
    }

    // ---- connected mode (ConnectedMode, ModeSwitch) ----------------------------------------------------

    /** Switches the mode at runtime (asynchronously, on the control thread); kept across DOWN/UP. */
    void setConnectedMode(boolean connected) {
        control.execute(() -> {
            connectedMode = connected;
            LinkResources r = resources;
            modeProblem = r != null && state == LinkState.UP ? ModeSwitch.apply(this, r, connected) : null;
        });
    }

    /** {@code connected}, {@code datagram}, or {@code datagram (connected refused: why)}. */
    String mode() {
        LinkResources r = resources;
        if (r != null && r.connected != null) {
            return "connected";
        }
        String problem = modeProblem;
        return connectedMode && problem != null ? "datagram (connected mode asked for: " + problem + ")"
                : connectedMode ? "connected (when UP)" : "datagram";
    }

    /** Connected mode of the current UP period, or null. */
    ConnectedMode connectedMode() {
        LinkResources r = resources;
        return r == null ? null : r.connected;
    }

    /** The current resources, for connected mode's fallback to UD. */
    LinkResources resourcesForConnectedMode() {
        return resources;
    }

    @Override
    public TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        return r.sendMulticast(group, etherType, payload);
    }

    @Override
    public TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        return r.sendBroadcast(etherType, payload);
    }

    @Override
    public CompletionStage<LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath) {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "path to " + destination + ": link " + name() + " is " + state + " (" + reason + ")"));
        }
        return r.paths.acquire(destination, serviceLevelFromPath);
    }

    @Override
    public Map<Gid, PathRecord> paths() {
        LinkResources r = resources;
        return r == null ? Map.of() : r.paths.snapshot();
    }

    /** The P_Key table entry the queue pair uses (full or limited membership), or null unless UP. */
    PKey pkeyInUse() {
        LinkResources r = resources;
        return r == null ? null : PKey.of(r.pkeyValue);
    }

    /** Path cache figures for the shell: entries, queries, failures, refreshes, handle changes. */
    Map<String, Long> pathCounters() {
        LinkResources r = resources;
        if (r == null) {
            return Map.of();
        }
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("paths", (long) r.paths.size());
        out.put("path_queries", r.paths.queries.sum());
        out.put("path_failures", r.paths.failures.sum());
        out.put("path_refreshes", r.paths.refreshes.sum());
        out.put("path_handle_changes", r.paths.handleChanges.sum());
        out.put("handles_awaiting_completion", (long) r.reaper.waiting());
        return out;
    }

    // ---- the multicast-attach role (LinkMulticast) ---------------------------------------------------

    void addMulticastGroup(McMemberRecord joined, boolean receive) {
        requireUp("add multicast group " + joined.mgid()).addGroup(joined, receive);
    }

    void removeMulticastGroup(Mgid group) {
        LinkResources r = resources;
        if (r != null) {
            r.removeGroup(group);
        }
    }

    boolean hasMulticastGroup(Mgid group) {
        LinkResources r = resources;
        return r != null && state == LinkState.UP && r.hasGroup(group);
    }

    private LinkResources requireUp(String operation) {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            throw new IllegalStateException(operation + ": link " + name() + " is " + state + " (" + reason + ")");
        }
        return r;
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
            hooks.postEvent(IpoibEvents.PROVIDER_ADDED, Map.of(IpoibEvents.LINK, name(), IpoibEvents.PROVIDER, p.name()));
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
            hooks.postEvent(IpoibEvents.PROVIDER_REMOVED, Map.of(IpoibEvents.LINK, name(), IpoibEvents.PROVIDER, p.name()));
        });
    }

    // ---- the state machine (control thread) ---------------------------------------------------------

    private void bringUp() {
        cancelRetry();
        if (closed || state != LinkState.DOWN) {
            return;
        }
        if (provider == null) {
            setState(LinkState.DOWN, "no verbs provider");
            return;
        }
        Device device = provider.device(config.device()).orElse(null);
        if (device == null) {
            String known = provider.devices().stream().map(Device::name).collect(Collectors.joining(", "));
            setState(LinkState.DOWN, "device " + config.device() + " not found on provider " + provider.name()
                    + (known.isEmpty() ? " (" + provider.status().reason() + ")" : " (devices: " + known + ")"));
            return;
        }
        Port p;
        try {
            p = device.port(config.port());
        } catch (VerbsException e) {
            setState(LinkState.DOWN, e.getMessage());
            return;
        }
        if (port != p) {
            unsubscribePort();
            port = p;
            try {
                portSubscription = p.addEventListener(this::onPortEvent);
            } catch (RuntimeException e) {
                setState(LinkState.DOWN, "cannot watch port " + describe(p) + ": " + e.getMessage());
                return;
            }
        }
        if (!p.attributes().isActive()) {
            setState(LinkState.DOWN, "port " + describe(p) + " is " + p.attributes().state());
            return;
        }
        OptionalInt index = p.pkeyTable().indexOfPartition(config.pkey());
        if (index.isEmpty()) {
            setState(LinkState.DOWN, "P_Key " + config.pkey() + " is not in the P_Key table of port " + describe(p)
                    + " " + p.pkeyTable());
            return;
        }
        setState(LinkState.JOINING, "joining the broadcast group");
        int gen = ++generation;
        int pkeyIndex = index.getAsInt();
        int pkeyValue = p.pkeyTable().get(pkeyIndex).map(PKey::value).orElse(0);
        join.join(p).whenComplete((record, failure) -> control.execute(() -> {
            if (gen != generation || closed) {
                return;
            }
            if (failure != null) {
                onJoinFailed(unwrap(failure));
            } else {
                onJoined(p, pkeyIndex, pkeyValue, record);
            }
        }));
    }

    private void onJoined(Port p, int pkeyIndex, int pkeyValue, McMemberRecord record) {
        LinkResources r;
        try {
            r = new LinkResources(this, p, pkeyIndex, pkeyValue, record, config);
        } catch (RuntimeException e) {
            onJoinFailed(e);
            return;
        }
        joinFailures = 0;
        scopeInUse = record.mgid().scope();
        resources = r;
        setState(LinkState.UP, "joined " + record.mgid() + " (MLID " + record.mlid() + ", Q_Key " + record.qkey()
                + ", MTU " + record.mtu() + ")");
        hooks.info(name() + " UP: QPN " + r.qpn + ", link MTU " + r.mtu + ", Q_Key " + r.qkey + ", broadcast "
                + record.mgid());
        startWatchdog();
        startReaper();
        modeProblem = connectedMode ? ModeSwitch.apply(this, r, true) : null;
        hooks.notifyListeners(this, LinkListener.Change.UP);
    }

    private void onJoinFailed(Throwable cause) {
        joinFailures++;
        long backoff = Math.min(MAX_BACKOFF_MILLIS,
                1000L << Math.min(Math.min(joinFailures - 1, config.joinRetryCount() - 1), 4));
        String why = cause instanceof TimeoutException
                ? "no answer within " + config.joinTimeoutMillis() + " ms"
                : String.valueOf(cause.getMessage());
        setState(LinkState.JOINING, "broadcast join failed (attempt " + joinFailures + "): " + why + "; retrying in "
                + backoff / 1000.0 + " s");
        long suppressed = joinErrorLog.tryAcquire();
        if (suppressed >= 0) {
            hooks.warn(name() + ": " + reason + (suppressed > 0 ? " (" + suppressed + " similar messages suppressed)" : ""),
                    null);
        }
        retry = control.schedule(() -> {
            if (state == LinkState.JOINING) {
                state = LinkState.DOWN;
                bringUp();
            }
        }, backoff, TimeUnit.MILLISECONDS);
    }

    private void onPortEvent(PortEvent event) {
        control.execute(() -> {
            if (event.port() != port || closed) {
                return;
            }
            switch (event.type()) {
                case PORT_ERROR -> goDown("port " + describe(port) + " went down", true);
                case DEVICE_FATAL -> goDown("device " + port.device().name() + " was reset", true);
                case PORT_ACTIVE -> {
                    if (state == LinkState.DOWN) {
                        bringUp();
                    }
                }
                case LID_CHANGE -> {
                    LinkResources r = resources;
                    if (r != null) {
                        r.ownLid = port.attributes().lid().value();
                        r.paths.refreshAll();
                        hooks.notifyListeners(this, LinkListener.Change.PATHS_STALE);
                    }
                }
                case SM_CHANGE -> {
                    LinkResources r = resources;
                    if (r != null && state == LinkState.UP) {
                        r.paths.refreshAll();
                        hooks.notifyListeners(this, LinkListener.Change.PATHS_STALE);
                    }
                }
                case CLIENT_REREGISTER -> rejoinBroadcast();
                case PKEY_CHANGE -> onPKeyTableChanged();
                case GID_CHANGE -> restart("the GID table of port " + describe(port) + " changed");
            }
        });
    }

    /**
     * The P_Key table changed (IBA 10.9.2; the SM's partition configuration). The queue pair is
     * bound to one table index: while that index still holds the same key, another partition came
     * or went and the link has nothing to do. Otherwise the link comes up again from the new table:
     * DOWN with the reason when the partition is gone, else a new queue pair on the key's new index
     * or membership. The broadcast-GID always carries the full-membership P_Key (RFC 4391 §4.1),
     * so a port that became a limited member joins the same broadcast group.
     */
    private void onPKeyTableChanged() {
        LinkResources r = resources;
        var table = port.pkeyTable();
        if (r != null && state == LinkState.UP) {
            var entry = table.get(r.pkeyIndex);
            if (entry.isPresent() && entry.get().value() == r.pkeyValue) {
                hooks.info(name() + ": P_Key table of port " + describe(port) + " changed to " + table + "; entry "
                        + r.pkeyIndex + " (" + entry.get() + ") is unchanged");
                return;
            }
        }
        restart("the P_Key table of port " + describe(port) + " changed to " + table);
    }

    /**
     * After a client re-register the SM has forgotten our joins: join the broadcast group again
     * (creating it when it is gone and creation is configured), keeping the data path when its
     * Q_Key and MTU are unchanged (following a new MLID in place), and tell the multicast manager
     * to join its groups again.
     */
    private void rejoinBroadcast() {
        LinkResources r = resources;
        if (r == null || state != LinkState.UP) {
            if (state == LinkState.JOINING) {
                state = LinkState.DOWN;
                bringUp();
            }
            return;
        }
        int gen = generation;
        Port p = r.port;
        McMemberRecord before = r.broadcast;
        join.joinOrCreate(p, r.gid, before.mgid(), config.pkey().asFullMember())
                .whenComplete((record, failure) -> control.execute(() -> {
                    if (gen != generation || closed) {
                        return;
                    }
                    if (failure != null) {
                        restart("broadcast re-join failed: " + unwrap(failure).getMessage());
                        return;
                    }
                    if (!record.qkey().equals(before.qkey()) || record.mtu() != before.mtu()) {
                        restart("broadcast group parameters changed after re-register (Q_Key " + record.qkey()
                                + ", MTU " + record.mtu() + ")");
                        return;
                    }
                    if (!record.mlid().equals(before.mlid())) {
                        try {
                            r.rebindBroadcast(record);
                        } catch (RuntimeException e) {
                            restart("cannot attach to the broadcast group's new MLID " + record.mlid() + ": "
                                    + e.getMessage());
                            return;
                        }
                        hooks.info(name() + ": broadcast group " + record.mgid() + " moved from MLID " + before.mlid()
                                + " to " + record.mlid());
                    }
                    hooks.info(name() + ": re-joined the broadcast group after a client re-register");
                    hooks.notifyListeners(this, LinkListener.Change.MULTICAST_RESET);
                    r.paths.refreshAll();
                    hooks.notifyListeners(this, LinkListener.Change.PATHS_STALE);
                }));
    }

    private void restart(String why) {
        if (state == LinkState.DOWN && resources == null) {
            bringUp();
            return;
        }
        goDown(why, true);
    }

    /** Releases the UP period's resources; with {@code retry}, tries to come up again at once. */
    private void goDown(String why, boolean retryNow) {
        generation++;
        cancelRetry();
        stopWatchdog();
        LinkResources r = resources;
        resources = null;
        boolean wasUp = state == LinkState.UP;
        setState(LinkState.DOWN, why);
        if (r != null) {
            r.close();
            leaveBroadcast(r);
        }
        if (wasUp) {
            hooks.notifyListeners(this, LinkListener.Change.DOWN);
        }
        if (retryNow && !closed) {
            bringUp();
        }
    }

    private void leaveBroadcast(LinkResources r) {
        try {
            if (r.port.attributes().isActive()) {
                r.port.subnetAdministrator().leave(r.broadcast.mgid(), r.gid, JoinState.FULL_MEMBER);
            }
        } catch (RuntimeException e) {
            // The provider is going away: the SM drops the membership with the port.
        }
    }

    private void setState(LinkState newState, String why) {
        LinkState old = state;
        state = newState;
        reason = why;
        if (old != newState) {
            if (newState != LinkState.UP) { // UP is logged where it is reached, with its parameters
                hooks.info(name() + " " + newState + ": " + why);
            }
            Map<String, Object> props = new LinkedHashMap<>();
            props.put(IpoibEvents.LINK, name());
            props.put(IpoibEvents.STATE, newState.name());
            props.put(IpoibEvents.REASON, why);
            if (newState == LinkState.UP) {
                props.put(IpoibEvents.MTU, mtu());
                hooks.postEvent(IpoibEvents.LINK_UP, props);
            } else if (old == LinkState.UP) {
                hooks.postEvent(IpoibEvents.LINK_DOWN, props);
            }
        }
    }

    private void startWatchdog() {
        long timeoutNanos = config.transmitTimeoutMillis() * 1_000_000L;
        watchdog = every(config.transmitTimeoutMillis(), () -> {
            LinkResources r = resources;
            if (r != null) {
                int stuck = r.stuckSends(timeoutNanos);
                if (stuck > 0) {
                    stats.txStuck.add(stuck);
                    hooks.warn(name() + ": " + stuck + " send buffers not returned within "
                            + config.transmitTimeoutMillis() + " ms", null);
                }
            }
        });
    }

    private void stopWatchdog() {
        if (watchdog != null) {
            watchdog.cancel();
            watchdog = null;
        }
        if (reaper != null) {
            reaper.cancel();
            reaper = null;
        }
    }

    /** Destroys retired address handles once their sends completed, every second (Linux: ipoib_reap_ah, HZ). */
    private void startReaper() {
        reaper = every(REAP_MILLIS, () -> {
            LinkResources r = resources;
            if (r != null) {
                r.reapHandles();
                ConnectedMode cm = r.connected;
                if (cm != null) {
                    cm.reapIdle();
                }
            }
        });
    }

    /** Runs the task on the loop every {@code millis} until the returned handle is cancelled. */
    private Cancellable every(long millis, Runnable task) {
        Cancellable[] next = new Cancellable[1];
        boolean[] cancelled = new boolean[1];
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (cancelled[0]) {
                return;
            }
            task.run();
            next[0] = control.schedule(tick[0], millis, TimeUnit.MILLISECONDS);
        };
        next[0] = control.schedule(tick[0], millis, TimeUnit.MILLISECONDS);
        // Called on the loop (goDown): no race with tick.
        return () -> {
            cancelled[0] = true;
            next[0].cancel();
        };
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

    void logHandlerError(FrameHandler handler, Throwable t) {
        long suppressed = handlerErrorLog.tryAcquire();
        if (suppressed >= 0) {
            hooks.error(name() + ": frame handler " + handler.getClass().getName() + " failed"
                    + (suppressed > 0 ? " (" + suppressed + " more failures suppressed)" : ""), t);
        }
    }

    private static String describe(Port p) {
        return p.device().name() + "/" + p.number();
    }

    private static Throwable unwrap(Throwable t) {
        return BroadcastJoin.unwrap(t);
    }

    /** Runs the task on the loop and waits: DS callbacks that must see the change applied. */
    private void runAndWait(Runnable task) {
        try {
            control.run(task, 10, TimeUnit.SECONDS);
        } catch (IllegalStateException e) {
            hooks.error(name() + ": control task failed: " + e.getMessage(), e);
        }
    }

    // ---- capture ---------------------------------------------------------------------------------------

    /**
     * Starts capturing this link's frames to a pcapng file.
     *
     * @throws IllegalStateException when a capture is running
     * @throws java.io.IOException when the file cannot be opened
     */
    synchronized LinkCapture startCapture(java.nio.file.Path file, long limit) throws java.io.IOException {
        LinkCapture running = capture;
        if (running != null && running.isRunning()) {
            throw new IllegalStateException("a capture of " + name() + " to " + running.file() + " is running");
        }
        LinkCapture[] self = new LinkCapture[1];
        LinkCapture started = new LinkCapture(name(), file, limit, () -> captureEnded(self[0]));
        self[0] = started;
        lastCapture = started;
        capture = started;
        return started;
    }

    private synchronized void captureEnded(LinkCapture ended) {
        if (capture == ended) {
            capture = null;
        }
        if (ended != null) {
            hooks.info(ended.summary());
        }
    }

    /** Stops the running capture; its summary, or null when none ran. */
    String stopCapture() {
        LinkCapture c;
        synchronized (this) {
            c = capture != null ? capture : lastCapture;
            capture = null;
        }
        if (c == null) {
            return null;
        }
        c.close();
        return c.summary();
    }

    /** The summary of the running or last capture, or null. */
    String captureSummary() {
        LinkCapture c = lastCapture;
        return c == null ? null : c.summary();
    }

    /** Stops the link for good: DOWN, resources freed, control thread ended. */
    void close() {
        stopCapture();
        runAndWait(() -> {
            goDown("interface removed", false);
            unsubscribePort();
            closed = true;
        });
        control.close();
        if (control instanceof ThreadControlLoop thread) {
            try {
                thread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return name() + " (" + state + ")";
    }
}
