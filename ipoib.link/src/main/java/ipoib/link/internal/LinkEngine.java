package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.VerbsProvider;
import ipoib.codec.mcast.MulticastMapping;
import ipoib.link.internal.capture.LinkCaptures;
import ipoib.link.internal.cm.CmLinkConnection;
import ipoib.link.internal.cm.ConnectedMode;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.ThreadControlLoop;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * One IPoIB interface as the {@link IpoibLink} service: its identity, state and counters, the
 * send methods and the path references. The state machine behind it is {@link LinkStateMachine}
 * (on the link's control loop); the send path reads the current {@link LinkStatus} without locks.
 *
 * <p>A plain class: {@link IpoibLinkComponent} builds it from a factory configuration and
 * registers it; tests and the benchmarks build it with its public constructor on a plain class
 * path (this package is not exported), give it a provider with {@link #providerAvailable} and
 * wait for {@link LinkState#UP}.
 */
public final class LinkEngine implements IpoibLink, AutoCloseable {
    public final LinkStatistics stats = new LinkStatistics();
    private final LinkConfig config;
    private final LinkHooks hooks;
    private final ControlLoop control;
    private final LinkStatus status;
    private final LinkStateMachine machine;
    private final LinkCaptures captures;
    private final RateLimiter handlerErrorLog;
    private final LinkMulticastAttachment multicast = new LinkMulticastAttachment(this);
    /** Flaps, join and path-resolution times over the engine's life ({@code /metrics}). */
    public final LinkHistory history;

    /**
     * An engine on its own control thread ({@code ipoib-link-<name>}, a virtual thread: an
     * appliance may run hundreds of links), DOWN until it has a provider.
     */
    public LinkEngine(LinkConfig config, LinkHooks hooks) {
        this(config, hooks, ThreadControlLoop.onVirtualThread("ipoib-link-" + config.name(),
                (message, failure) -> hooks.error(config.name() + ": " + message, failure)));
    }

    /**
     * An engine whose state changes, timers and timeouts run on {@code control} (a manual loop in
     * tests: backoff, join timeouts, the watchdog and the reaper then run without waiting).
     */
    public LinkEngine(LinkConfig config, LinkHooks hooks, ControlLoop control) {
        this.config = config;
        this.hooks = hooks;
        this.control = control;
        this.history = new LinkHistory(control.clock());
        this.status = new LinkStatus(config.name(), hooks);
        this.captures = new LinkCaptures(config.name(), hooks::info);
        this.handlerErrorLog = new RateLimiter(control.clock(), 10, TimeUnit.SECONDS);
        this.machine = new LinkStateMachine(this, config, hooks, control, status);
    }

    public ControlLoop control() {
        return control;
    }

    public LinkHooks hooks() {
        return hooks;
    }

    public LinkConfig config() {
        return config;
    }

    LinkStatus status() {
        return status;
    }

    /** The link's capture ({@code ipoib:capture}). */
    public LinkCaptures captures() {
        return captures;
    }

    // ---- identity and state ------------------------------------------------------------------------

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public LinkState state() {
        return status.state();
    }

    @Override
    public String stateReason() {
        return status.reason();
    }

    @Override
    public Port port() {
        LinkResources r = status.resources();
        return r != null ? r.port : machine.port();
    }

    @Override
    public PKey pkey() {
        return config.pkey();
    }

    @Override
    public Mgid broadcastGid() {
        return MulticastMapping.broadcastGid(config.pkey().asFullMember(), machine.scopeInUse());
    }

    @Override
    public LinkAddress address() {
        LinkResources r = status.resources();
        return r == null ? null : r.address;
    }

    @Override
    public Gid gid() {
        LinkResources r = status.resources();
        return r == null ? null : r.gid;
    }

    @Override
    public Qpn qpn() {
        LinkResources r = status.resources();
        return r == null ? null : r.qpn;
    }

    @Override
    public int mtu() {
        LinkResources r = status.resources();
        return r == null ? 0 : r.connected != null ? ConnectedMode.MTU : r.mtu;
    }

    @Override
    public QKey qkey() {
        LinkResources r = status.resources();
        return r == null ? null : r.qkey;
    }

    @Override
    public int serviceLevel() {
        LinkResources r = status.resources();
        return r == null ? 0 : r.serviceLevel;
    }

    @Override
    public McMemberRecord broadcastGroup() {
        LinkResources r = status.resources();
        return r == null ? null : r.broadcast();
    }

    public String providerName() {
        return machine.providerName();
    }

    /** The P_Key table entry the queue pair uses (full or limited membership), or null unless UP. */
    public PKey pkeyInUse() {
        LinkResources r = status.resources();
        return r == null ? null : PKey.of(r.pkeyValue);
    }

    @Override
    public LinkCounters counters() {
        return stats.snapshot();
    }

    @Override
    public Map<String, Long> dropCounters() {
        return stats.drops();
    }

    // ---- data path ---------------------------------------------------------------------------------

    @Override
    public TransmitResult sendUnicast(LinkPath path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        LinkResources r = status.upResources();
        if (r == null) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        if (!(path instanceof PathEntry.Reference ref) || ref.released()) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return r.sendUnicast(ref.entry, remoteQpn, etherType, payload);
    }

    @Override
    public TransmitResult sendUnicast(LinkPath path, LinkAddress destination, int etherType, MemorySegment payload) {
        LinkResources r = status.upResources();
        if (r == null) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        if (!(path instanceof PathEntry.Reference ref) || ref.released()) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return r.sendUnicast(ref.entry, destination, etherType, payload);
    }

    @Override
    public TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        LinkResources r = status.upResources();
        if (r == null) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        return r.sendMulticast(group, etherType, payload);
    }

    @Override
    public TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        LinkResources r = status.upResources();
        if (r == null) {
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        return r.sendBroadcast(etherType, payload);
    }

    @Override
    public boolean beginBurst() {
        LinkResources r = status.upResources();
        return r != null && r.beginBurst();
    }

    @Override
    public void endBurst() {
        LinkResources r = status.upResources();
        if (r != null) {
            r.endBurst();
        }
    }

    /**
     * Hands a received frame to every handler of its EtherType (on a receive thread, allocating
     * nothing); a failing handler is counted and logged, the others still run.
     */
    public void dispatch(FrameHandler[] handlers, ReceivedFrame frame) {
        for (FrameHandler handler : handlers) {
            try {
                handler.onFrame(this, frame);
            } catch (Throwable t) {
                stats.handlerErrors.increment();
                logHandlerError(handler, t);
            }
        }
    }

    /** The end of a poll, on the receive thread: every handler may pass on what it held back. */
    public void endOfBatch() {
        for (FrameHandler handler : hooks.allHandlers()) {
            try {
                handler.endOfBatch(this);
            } catch (Throwable t) {
                stats.handlerErrors.increment();
                logHandlerError(handler, t);
            }
        }
    }

    /** Logs a frame handler's failure, at most once per 10 s with the number suppressed. */
    private void logHandlerError(FrameHandler handler, Throwable t) {
        long suppressed = handlerErrorLog.tryAcquire();
        if (suppressed >= 0) {
            hooks.error(name() + ": frame handler " + handler.getClass().getName() + " failed"
                    + (suppressed > 0 ? " (" + suppressed + " more failures suppressed)" : ""), t);
        }
    }

    // ---- connected mode (ConnectedMode, ModeSwitch) ----------------------------------------------------

    /** The administrative mode: connected (RFC 4755) or datagram (the default); kept across DOWN/UP. */
    private volatile boolean connectedMode;
    /** Why connected mode does not run although asked for; null when it runs or was not asked for. */
    private volatile String modeProblem;

    /** Switches the mode at runtime (asynchronously, on the control thread). */
    public void setConnectedMode(boolean connected) {
        control.execute(() -> {
            connectedMode = connected;
            LinkResources r = status.upResources();
            modeProblem = r != null ? ModeSwitch.apply(this, r, connected) : null;
        });
    }

    /** On the control thread when the link came UP: the administrative mode applied to the new period. */
    void applyMode(LinkResources r) {
        modeProblem = connectedMode ? ModeSwitch.apply(this, r, true) : null;
    }

    /** Whether connected mode was asked for. */
    boolean connectedModeWanted() {
        return connectedMode;
    }

    /** {@code connected}, {@code datagram}, or datagram with the reason connected mode does not run. */
    public String mode() {
        LinkResources r = status.resources();
        if (r != null && r.connected != null) {
            return "connected";
        }
        String problem = modeProblem;
        return connectedMode && problem != null ? "datagram (connected mode asked for: " + problem + ")"
                : connectedMode ? "connected (once UP)" : "datagram";
    }

    @Override
    public boolean connectionUp(LinkAddress peer) {
        ConnectedMode cm = connectedMode();
        return cm != null && peer != null && cm.connectedTo(peer.gid(), peer.qpn().value());
    }

    /**
     * Sets up a new connection to {@code peer} (tearing down the current one) by sending it
     * {@code frame}, and returns the time from the REQ to the RTU in nanoseconds: the benchmarks'
     * set-up figure.
     *
     * @throws IllegalStateException when the link is not in connected mode or the connection does
     *     not come up within 10 s
     */
    public long connectionSetupNanos(LinkPath path, LinkAddress peer, int etherType, MemorySegment frame) {
        ConnectedMode cm = connectedMode();
        if (cm == null || !(path instanceof PathEntry.Reference ref)) {
            throw new IllegalStateException(name() + " is not in connected mode (" + mode() + ")");
        }
        CmLinkConnection old = ref.entry.connection;
        if (old != null) {
            cm.disconnect(old);
        }
        sendUnicast(path, peer, etherType, frame);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            CmLinkConnection c = ref.entry.connection;
            if (c != null && c != old && c.state == CmLinkConnection.State.UP) {
                return c.setupNanos;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no connection from " + name() + " within 10 s: " + c);
            }
            Thread.onSpinWait();
        }
    }

    /** Connected mode of the current UP period, or null. */
    public ConnectedMode connectedMode() {
        LinkResources r = status.resources();
        return r == null ? null : r.connected;
    }

    /** The current resources, for connected mode's fallback to UD. */
    public LinkResources resourcesForConnectedMode() {
        return status.upResources();
    }

    // ---- paths -------------------------------------------------------------------------------------

    @Override
    public CompletionStage<LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath) {
        LinkResources r = status.upResources();
        if (r == null) {
            return CompletableFuture.failedFuture(status.notUp("path to " + destination));
        }
        return r.paths.acquire(destination, serviceLevelFromPath);
    }

    @Override
    public Map<Gid, PathRecord> paths() {
        LinkResources r = status.resources();
        return r == null ? Map.of() : r.paths.snapshot();
    }

    /** Path cache figures for the shell: entries, queries, failures, refreshes, handle changes. */
    public Map<String, Long> pathCounters() {
        LinkResources r = status.resources();
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

    // ---- lifecycle (from the component) ------------------------------------------------------------

    /** The link's multicast-attach role, for the multicast manager (registered next to the link). */
    public MulticastAttachment multicastAttachment() {
        return multicast;
    }

    /** Runs on {@code p} (replacing the provider before): the link comes up when its port and partition are there. */
    public void providerAvailable(VerbsProvider p) {
        machine.providerAvailable(p);
    }

    /** The provider goes away: the link goes DOWN and frees the provider's resources before this returns. */
    public void providerGone(VerbsProvider p) {
        machine.providerGone(p);
    }

    /** Stops the link for good: DOWN, resources freed, control thread ended. */
    @Override
    public void close() {
        captures.stop();
        machine.close();
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
        return name() + " (" + status.state() + ")";
    }
}
