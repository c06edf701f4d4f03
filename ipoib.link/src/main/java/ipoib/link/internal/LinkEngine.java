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
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.VerbsProvider;
import ipoib.codec.mcast.MulticastMapping;
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
    final LinkStatistics stats = new LinkStatistics();
    private final LinkConfig config;
    private final LinkHooks hooks;
    private final ControlLoop control;
    private final LinkStatus status;
    private final LinkStateMachine machine;
    private final LinkCaptures captures;
    private final RateLimiter handlerErrorLog;
    private final LinkMulticast multicast = new LinkMulticast(this);

    /** An engine on its own control thread ({@code ipoib-link-<name>}), DOWN until it has a provider. */
    public LinkEngine(LinkConfig config, LinkHooks hooks) {
        this(config, hooks, new ThreadControlLoop("ipoib-link-" + config.name(),
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
        this.status = new LinkStatus(config.name(), hooks);
        this.captures = new LinkCaptures(config.name(), hooks::info);
        this.handlerErrorLog = new RateLimiter(control.clock(), 10, TimeUnit.SECONDS);
        this.machine = new LinkStateMachine(this, config, hooks, control, status);
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

    LinkStatus status() {
        return status;
    }

    /** The link's capture ({@code ipoib:capture}). */
    LinkCaptures captures() {
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
        return r == null ? 0 : r.mtu;
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

    String providerName() {
        return machine.providerName();
    }

    /** The P_Key table entry the queue pair uses (full or limited membership), or null unless UP. */
    PKey pkeyInUse() {
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

    /** Logs a frame handler's failure, at most once per 10 s with the number suppressed. */
    void logHandlerError(FrameHandler handler, Throwable t) {
        long suppressed = handlerErrorLog.tryAcquire();
        if (suppressed >= 0) {
            hooks.error(name() + ": frame handler " + handler.getClass().getName() + " failed"
                    + (suppressed > 0 ? " (" + suppressed + " more failures suppressed)" : ""), t);
        }
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
    Map<String, Long> pathCounters() {
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
