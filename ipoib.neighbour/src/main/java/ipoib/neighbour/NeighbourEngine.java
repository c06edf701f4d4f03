package ipoib.neighbour;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.NoSuchNodeException;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.runtime.Counters;
import ipoib.runtime.RateLimiter;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The neighbour tables of every link for one address family, and the shadow-ARP state machine
 * of the Intel high-level design §2.1.4 extended with revalidation (RFC 4391 §9.4):
 *
 * <pre>
 *  (send to unknown)   INCOMPLETE --answer--> PATH_PENDING --PathRecord--> RESOLVED
 *                         |  solicitations            |  lookup fails:           |  confirmation older than the
 *                         |  run out: FAILED          |  entry removed,          |  revalidation period and used:
 *                         v  (queued frames dropped)  v  frames dropped          v  STALE (still sends), unicast
 *                       FAILED  --hold time--> removed                             probes, then broadcast; an
 *                                                                                  answer with a new QPN heals it
 * </pre>
 *
 * <p><b>Data path.</b> {@link #send} looks the link's table up by name and the neighbour by its
 * two-long key, both without allocating or locking, and hands the frame to the link with the
 * neighbour's {@link Route}. Only a miss (no entry, or an entry that cannot send yet) takes the
 * entry's own lock, to queue the frame in order behind the frames already waiting.
 *
 * <p><b>Control plane.</b> Solicitations, path requests to the link and their answers, timers
 * and link events run on the {@code control} executor (one thread); answers from the protocol
 * ({@link #learn}) come from the link's receive thread. A resolved entry holds a reference to the
 * link's path ({@link IpoibLink#acquirePath}) and releases it when its route is retired; the link
 * destroys the address handle once the sends that used it completed, so a sender still holding
 * the old route is at worst dropped, never posted on a destroyed handle.
 *
 * <p>Size (~1 000 lines, not split yet — issue 11 asks for it): the data path, the timed state
 * machine, the protocol input and the administration (permanent entries, queries) share the
 * entries' locks and counters. Paths and address handles are no longer here (the link's
 * {@link ipoib.api.link.LinkPath}). Next split: the timed transitions and the administration into
 * their own classes over a shared table.
 */
public final class NeighbourEngine implements AutoCloseable {

    private final boolean ipv6;
    private final String family;
    private final Protocol protocol;
    private final Reporter reporter;
    private final Executor control;
    private final LongSupplier clock;
    private volatile Settings settings;
    private volatile boolean closed;

    private final ConcurrentHashMap<String, LinkContext> contexts = new ConcurrentHashMap<>();
    /** Permanent entries by link name, re-created on every UP. */
    private final Map<String, Map<Key, LinkAddress>> permanents = new ConcurrentHashMap<>();
    private final RateLimiter pathErrorLog;
    private final RateLimiter failureLog;

    private final Counters counters;

    /** The engine's counters (in the set the protocol shares). */
    private final EngineCounters c;

    private record Key(long high, long low) {}

    /**
     * @param ipv6 the family: IPv6 keys are the address's two halves, IPv4 keys {@code (0, address)}
     * @param counters the counters the engine adds its own to (the protocol keeps its in the same set)
     * @param control the executor of the control plane: one thread, tasks in order
     * @param clock {@link System#nanoTime}, or a test clock
     */
    public NeighbourEngine(boolean ipv6, Protocol protocol, Settings settings, Reporter reporter, Counters counters,
                           Executor control, LongSupplier clock) {
        this.ipv6 = ipv6;
        this.family = ipv6 ? "IPv6" : "IPv4";
        this.protocol = Objects.requireNonNull(protocol);
        this.settings = Objects.requireNonNull(settings);
        this.reporter = Objects.requireNonNull(reporter);
        this.counters = counters;
        this.control = control;
        this.clock = clock;
        ipoib.runtime.Clock logClock = clock::getAsLong;
        this.pathErrorLog = new RateLimiter(logClock, 5, java.util.concurrent.TimeUnit.SECONDS);
        this.failureLog = new RateLimiter(logClock, 5, java.util.concurrent.TimeUnit.SECONDS);
        this.c = new EngineCounters(counters);
    }

    public Settings settings() {
        return settings;
    }

    /** New knobs, used from the next event on (a running table keeps its entries). */
    public void settings(Settings next) {
        this.settings = Objects.requireNonNull(next);
    }

    public Counters counters() {
        return counters;
    }

    private long now() {
        return clock.getAsLong();
    }

    private InetAddress address(long high, long low) {
        return AddressBits.address(ipv6, high, low);
    }

    // ---- data path ---------------------------------------------------------------------------------

    /**
     * Sends a frame to a neighbour: at once when resolved, else queued (bounded) while the
     * neighbour resolves. Never blocks; allocates nothing for a resolved neighbour.
     */
    public TransmitResult send(IpoibLink link, long high, long low, int etherType, MemorySegment frame) {
        LinkContext ctx = contexts.get(link.name());
        if (ctx != null && ctx.link == link) {
            Neighbour n = ctx.map.get(high, low);
            if (n != null) {
                Route r = n.route;
                if (r != null) {
                    if (!n.used) {
                        n.used = true;
                    }
                    return link.sendUnicast(r.path(), r.linkAddress(), etherType, frame);
                }
            }
            return missedSend(ctx, n, high, low, etherType, frame);
        }
        if (link.state() != LinkState.UP || closed) {
            c.droppedLinkDown.increment();
            return TransmitResult.DROPPED_LINK_DOWN;
        }
        return missedSend(linkUp(link), null, high, low, etherType, frame);
    }

    private TransmitResult missedSend(LinkContext ctx, Neighbour n, long high, long low, int etherType,
                                      MemorySegment frame) {
        for (int attempt = 0; attempt < 3; attempt++) {
            long now = now();
            if (ctx.closed) {
                // The link went down (or came up again) meanwhile: its table is void.
                LinkContext current = contexts.get(ctx.name);
                if (current == null || current.link != ctx.link) {
                    c.droppedLinkDown.increment();
                    return TransmitResult.DROPPED_LINK_DOWN;
                }
                ctx = current;
                n = null;
            }
            if (n == null) {
                String why = protocol.cannotResolve(ctx.link, high, low);
                if (why != null) {
                    c.droppedNoSource.increment();
                    return TransmitResult.DROPPED_NO_ROUTE;
                }
                n = getOrCreate(ctx, high, low, now);
                if (n == null) {
                    if (ctx.closed) {
                        continue;
                    }
                    c.droppedTableFull.increment();
                    return TransmitResult.DROPPED_TABLE_FULL;
                }
            }
            boolean kick = false;
            TransmitResult result;
            synchronized (n) {
                if (n.removed) {
                    n = null;
                    continue;
                }
                Route r = n.route;
                if (r != null) {
                    n.used = true;
                    return ctx.link.sendUnicast(r.path(), r.linkAddress(), etherType, frame);
                }
                if (n.state == NeighbourState.FAILED) {
                    if (now - n.deadlineNanos < 0) {
                        c.droppedFailedEntry.increment();
                        return TransmitResult.DROPPED_NO_ROUTE;
                    }
                    kick = restart(n, now);
                }
                if (n.enqueue(etherType, frame, settings.queueLength())) {
                    c.queued.increment();
                    result = TransmitResult.QUEUED;
                } else {
                    c.droppedQueueFull.increment();
                    result = TransmitResult.DROPPED_QUEUE_FULL;
                }
                if (n.state == NeighbourState.INCOMPLETE && n.probes == 0) {
                    kick = true;
                }
            }
            if (kick) {
                kick(n);
            }
            return result;
        }
        c.droppedTableFull.increment();
        return TransmitResult.DROPPED_TABLE_FULL;
    }

    /** A FAILED entry whose hold time is over tries again; returns whether it must be kicked. Holds n. */
    private boolean restart(Neighbour n, long now) {
        n.failure = null;
        n.probes = 0;
        n.deadlineNanos = now;
        if (n.permanent) {
            startPath(n, now, false);
            return false;
        }
        n.linkAddress = null;
        n.state(NeighbourState.INCOMPLETE, now);
        return true;
    }

    private void kick(Neighbour n) {
        execute(() -> {
            List<Runnable> after = new ArrayList<>(1);
            synchronized (n) {
                process(n, now(), after);
            }
            after.forEach(Runnable::run);
        });
    }

    private void execute(Runnable task) {
        if (closed) {
            return;
        }
        try {
            control.execute(task);
        } catch (RejectedExecutionException stopping) {
            // The component is going away; its tables go with it.
        }
    }

    /** The entry of a key, created INCOMPLETE when absent; null when the table is full. */
    private Neighbour getOrCreate(LinkContext ctx, long high, long low, long now) {
        Neighbour victim = null;
        Neighbour created;
        synchronized (ctx.map) {
            if (ctx.closed) {
                return null;
            }
            Neighbour existing = ctx.map.get(high, low);
            if (existing != null && !existing.removed) {
                return existing;
            }
            created = new Neighbour(ctx, high, low, address(high, low), now);
            if (existing != null) {
                ctx.map.replace(existing, created);
                return created;
            }
            if (ctx.map.size() >= settings.maxEntries()) {
                victim = evictionVictim(ctx, now);
                if (victim == null) {
                    return null;
                }
                ctx.map.remove(victim);
            }
            ctx.map.put(created);
        }
        if (victim != null) {
            c.evicted.increment();
            List<Runnable> after = new ArrayList<>(1);
            synchronized (victim) {
                markRemoved(victim, c.droppedFlushed, "evicted: the table of " + ctx.name + " is full", after);
            }
            after.forEach(Runnable::run);
        }
        return created;
    }

    /** A FAILED entry, else the resolved one used longest ago; never one that is resolving or permanent. */
    private Neighbour evictionVictim(LinkContext ctx, long now) {
        Neighbour best = null;
        long bestAge = -1;
        for (Neighbour n : ctx.map.values()) {
            synchronized (n) {
                if (n.permanent || n.removed) {
                    continue;
                }
                if (n.state == NeighbourState.FAILED) {
                    return n;
                }
                if (n.route != null && !n.used && now - n.lastUsedNanos > bestAge) {
                    best = n;
                    bestAge = now - n.lastUsedNanos;
                }
            }
        }
        return best;
    }

    // ---- links -------------------------------------------------------------------------------------

    /** A link is UP (idempotent for the same UP period): a fresh table, permanent entries resolved again. */
    public synchronized LinkContext linkUp(IpoibLink link) {
        LinkContext old = contexts.get(link.name());
        Qpn own = link.qpn();
        if (old != null && old.link == link && !old.closed && own != null && own.equals(old.ownQpn)) {
            return old;
        }
        if (old != null) {
            closeContext(old, "link " + link.name() + " came up again");
        }
        LinkContext ctx = new LinkContext(link, own);
        if (closed) {
            return ctx;
        }
        contexts.put(link.name(), ctx);
        Map<Key, LinkAddress> statics = permanents.get(link.name());
        if (statics != null) {
            long now = now();
            statics.forEach((key, address) -> installPermanent(ctx, key.high(), key.low(), address, now));
        }
        return ctx;
    }

    /** A link went DOWN or away: its table is void (queued frames dropped and counted). */
    public synchronized void linkDown(IpoibLink link) {
        LinkContext ctx = contexts.get(link.name());
        if (ctx != null && ctx.link == link) {
            contexts.remove(link.name(), ctx);
            closeContext(ctx, "link " + link.name() + " went down");
        }
    }

    private void closeContext(LinkContext ctx, String why) {
        // Entries are only created under the map's lock after checking closed, and values()
        // takes that lock: every entry is in the snapshot or never created.
        ctx.closed = true;
        List<Runnable> after = new ArrayList<>();
        for (Neighbour n : ctx.map.values()) {
            synchronized (n) {
                markRemoved(n, c.droppedLinkDown, why, after);
            }
            ctx.map.remove(n);
        }
        after.forEach(Runnable::run);
    }

    // ---- protocol input ------------------------------------------------------------------------------

    /**
     * What the protocol heard about a neighbour's link-layer address (RFC 826's merge, RFC 4861
     * §7.2.5): an existing entry is updated, a missing one created only when {@code create} (the
     * packet was meant for us). {@code confirm} marks an answer to our solicitation, which
     * confirms reachability. A new QPN on the same GID heals the entry at once; a new GID needs a
     * new PathRecord. Permanent entries are never changed. Called on the receive thread.
     *
     * @return whether an entry exists for the neighbour afterwards
     */
    public boolean learn(IpoibLink link, long high, long low, LinkAddress heard, boolean create, boolean confirm) {
        return learn(link, high, low, heard, create, confirm, true);
    }

    /**
     * {@link #learn(IpoibLink, long, long, LinkAddress, boolean, boolean)} with the Override flag
     * of a Neighbor Advertisement (RFC 4861 §7.2.5): without it, an advertisement of another
     * link-layer address does not replace a known one (it only confirms a matching one).
     */
    public boolean learn(IpoibLink link, long high, long low, LinkAddress heard, boolean create, boolean confirm,
                         boolean override) {
        LinkContext ctx = contexts.get(link.name());
        if (ctx == null || ctx.link != link) {
            if (!create || link.state() != LinkState.UP || closed) {
                return false;
            }
            ctx = linkUp(link);
        }
        LinkAddress address = heard.withoutFlags();
        long now = now();
        Neighbour n = ctx.map.get(high, low);
        if (n == null || n.removed) {
            if (!create) {
                return false;
            }
            n = getOrCreate(ctx, high, low, now);
            if (n == null) {
                if (!ctx.closed) {
                    c.droppedTableFull.increment();
                }
                return false;
            }
        }
        List<Runnable> after = new ArrayList<>(2);
        synchronized (n) {
            if (n.removed) {
                return false;
            }
            if (n.permanent) {
                return true;
            }
            LinkAddress old = n.linkAddress;
            if (!override && old != null && !old.equals(address) && n.state != NeighbourState.FAILED) {
                return true;
            }
            n.flags = heard.flags();
            if (old == null) {
                n.linkAddress = address;
                n.confirmedNanos = now;
                after.add(startPath(n, now, false));
            } else if (old.equals(address)) {
                Route current = n.route;
                if (current != null && current.linkAddress().flags() != n.flags) {
                    n.route = current.withAddress(flagged(n)); // the peer switched its mode (datagram/connected)
                }
                if (n.state == NeighbourState.FAILED) {
                    n.failure = null;
                    n.confirmedNanos = now;
                    after.add(startPath(n, now, false));
                } else if (confirm) {
                    n.confirmedNanos = now;
                    if (n.state == NeighbourState.STALE) {
                        // The unicast probes went unanswered and the broadcast one was answered
                        // from the same address: the path itself is stale (e.g. the peer's LID
                        // changed), so it is looked up again.
                        boolean unicastFailed = n.probes > settings.unicastProbes() && n.route != null;
                        n.state(NeighbourState.RESOLVED, now);
                        n.probes = 0;
                        if (unicastFailed) {
                            // The link queries its path again (issue: a peer's LID changed).
                            c.pathRefreshes.increment();
                            after.add(startPath(n, now, true));
                        }
                    }
                }
            } else if (old.gid().equals(address.gid())) {
                c.qpnChanges.increment();
                n.linkAddress = address;
                n.confirmedNanos = now;
                Route r = n.route;
                if (r != null) {
                    n.route = r.withAddress(flagged(n));
                    n.state(NeighbourState.RESOLVED, now);
                    n.probes = 0;
                } else if (n.state == NeighbourState.FAILED) {
                    after.add(startPath(n, now, false));
                }
                after.add(changed(n, old, address));
            } else {
                c.gidChanges.increment();
                n.linkAddress = address;
                n.confirmedNanos = now;
                after.add(startPath(n, now, false));
                after.add(changed(n, old, address));
            }
        }
        after.forEach(Runnable::run);
        return true;
    }

    /** The neighbour's address with the flags it announced: what its route carries to the link. */
    private static LinkAddress flagged(Neighbour n) {
        LinkAddress a = n.linkAddress;
        return n.flags == a.flags() ? a : new LinkAddress(n.flags, a.qpn(), a.gid());
    }

    private Runnable changed(Neighbour n, LinkAddress old, LinkAddress now) {
        String link = n.context.name;
        return () -> {
            reporter.info(family + " neighbour " + AddressBits.text(n.address) + " on " + link
                    + " changed its link-layer address from " + old + " to " + now);
            reporter.event(IpoibEvents.NEIGHBOUR_CHANGED, Map.of(IpoibEvents.LINK, link,
                    IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.LINK_ADDRESS, now.toString()));
        };
    }

    /**
     * A neighbour announced itself (a gratuitous ARP, an unsolicited Neighbor Advertisement): it
     * does so when its port's LID or SM changed, so its path may have changed too, and the link
     * queries it again at once instead of waiting for revalidation to find unicast unanswered
     * (issue 12 item 11). The entry keeps sending on the current path meanwhile.
     *
     * @return whether a path refresh was asked (the neighbour is known and has a path)
     */
    public boolean announced(IpoibLink link, long high, long low) {
        LinkContext ctx = contexts.get(link.name());
        Neighbour n = ctx == null ? null : ctx.map.get(high, low);
        if (n == null) {
            return false;
        }
        Runnable refresh;
        synchronized (n) {
            if (n.removed || n.route == null) {
                return false;
            }
            c.pathRefreshes.increment();
            refresh = startPath(n, now(), true);
        }
        refresh.run();
        return true;
    }

    /** The link-layer address of a neighbour if the table has it (for the protocol: conflicts, probes). */
    public LinkAddress linkAddressOf(IpoibLink link, long high, long low) {
        LinkContext ctx = contexts.get(link.name());
        Neighbour n = ctx == null ? null : ctx.map.get(high, low);
        if (n == null) {
            return null;
        }
        synchronized (n) {
            return n.removed ? null : n.linkAddress;
        }
    }

    // ---- path records ------------------------------------------------------------------------------

    /**
     * Gets the link's path to the entry's GID. With {@code refresh} and a route, the link is asked
     * to query its path again and the entry keeps sending meanwhile; else the entry goes
     * PATH_PENDING and queues. Holds n; returns the task that asks the link, to run after the
     * lock is released.
     */
    private Runnable startPath(Neighbour n, long now, boolean refresh) {
        Route current = n.route;
        if (refresh && current != null) {
            return () -> current.path().refresh();
        }
        int gen = ++n.pathGeneration;
        retire(n.route, now);
        n.route = null;
        n.state(NeighbourState.PATH_PENDING, now);
        n.deadlineNanos = now + settings.pathTimeoutMillis() * 1_000_000L;
        Gid gid = n.linkAddress.gid();
        IpoibLink link = n.context.link;
        boolean pathSl = settings.serviceLevelFromPath();
        return () -> {
            c.pathLookups.increment();
            CompletionStage<LinkPath> stage;
            try {
                stage = link.acquirePath(gid, pathSl);
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((path, failure) -> {
                if (closed && path != null) {
                    path.release();
                    return;
                }
                execute(() -> onPath(n, gen, path, failure));
            });
        };
    }

    private void onPath(Neighbour n, int gen, LinkPath path, Throwable failure) {
        long now = now();
        List<Runnable> after = new ArrayList<>(2);
        synchronized (n) {
            if (n.removed || gen != n.pathGeneration) {
                if (path != null) {
                    path.release(); // a late answer nobody waits for
                }
                return;
            }
            if (failure != null) {
                pathFailed(n, "PathRecord lookup of " + n.linkAddress.gid() + " failed: " + message(failure), now, after);
            } else {
                pathResolved(n, path, now, after);
            }
        }
        after.forEach(Runnable::run);
    }

    private void pathResolved(Neighbour n, LinkPath path, long now, List<Runnable> after) {
        IpoibLink link = n.context.link;
        Route route = new Route(path, n.linkAddress.qpn(), flagged(n));
        // The frames queued meanwhile go first, then the route is published: a sender that finds
        // no route takes this lock and queues behind them, so the order holds.
        for (Neighbour.Pending p : n.drainQueue()) {
            link.sendUnicast(path, route.linkAddress(), p.etherType(), p.frame());
            c.queuedSent.increment();
        }
        retire(n.route, now);
        n.route = route;
        boolean fresh = n.state == NeighbourState.PATH_PENDING || n.state == NeighbourState.FAILED;
        if (fresh) {
            n.state(NeighbourState.RESOLVED, now);
            n.probes = 0;
            c.resolved.increment();
        }
        n.failure = null;
        List<CompletableFuture<PathInfo>> waiters = n.drainWaiters();
        PathInfo info = info(path.record());
        String linkName = n.context.name;
        String text = n.linkAddress.toString();
        after.add(() -> {
            waiters.forEach(w -> w.complete(info));
            if (fresh) {
                reporter.event(IpoibEvents.NEIGHBOUR_RESOLVED, Map.of(IpoibEvents.LINK, linkName,
                        IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.LINK_ADDRESS, text));
            }
        });
    }

    /**
     * Design §2.1.4: a failed PathRecord lookup removes the entry, frees its queued frames
     * (counted) and logs the error. A permanent entry stays, FAILED, and is tried again after
     * the hold time.
     */
    private void pathFailed(Neighbour n, String why, long now, List<Runnable> after) {
        c.pathFailures.increment();
        String line = LogLines.limit(pathErrorLog, family + " neighbour " + AddressBits.text(n.address) + " on " + n.context.name
                + ": " + why + "; " + n.queued() + " queued frames dropped");
        if (line != null) {
            after.add(() -> reporter.error(line));
        }
        if (n.permanent) {
            fail(n, why, c.droppedPathFailure, now, after);
            return;
        }
        markRemoved(n, c.droppedPathFailure, why, after);
        Neighbour gone = n;
        after.add(() -> gone.context.map.remove(gone));
        after.add(() -> reporter.event(IpoibEvents.NEIGHBOUR_FAILED, Map.of(IpoibEvents.LINK, gone.context.name,
                IpoibEvents.ADDRESS, AddressBits.text(gone.address), IpoibEvents.REASON, why)));
    }

    private static PathInfo info(PathRecord p) {
        return new PathInfo(p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(), p.flowLabel(),
                p.pkey(), p.serviceLevel(), p.mtu(), p.rate(), p.packetLifetime(), p.hopLimit(), p.trafficClass());
    }

    // ---- failure and removal (entry lock held) -----------------------------------------------------

    /** Resolution gave up: FAILED for the hold time, queued frames dropped, waiters told. */
    private void fail(Neighbour n, String why, LongAdder dropCounter, long now, List<Runnable> after) {
        n.failure = why;
        n.state(NeighbourState.FAILED, now);
        retire(n.route, now);
        n.route = null;
        n.probes = 0;
        n.deadlineNanos = now + settings.failedHoldMillis() * 1_000_000L;
        int dropped = n.drainQueue().size();
        dropCounter.add(dropped);
        List<CompletableFuture<PathInfo>> waiters = n.drainWaiters();
        String link = n.context.name;
        after.add(() -> {
            NoSuchNodeException e = new NoSuchNodeException(AddressBits.text(n.address) + " on " + link + ": " + why);
            waiters.forEach(w -> w.completeExceptionally(e));
        });
    }

    private void markRemoved(Neighbour n, LongAdder dropCounter, String why, List<Runnable> after) {
        if (n.removed) {
            return;
        }
        n.removed = true;
        Route r = n.route;
        n.route = null;
        if (r != null) {
            r.path().release();
        }
        dropCounter.add(n.drainQueue().size());
        List<CompletableFuture<PathInfo>> waiters = n.drainWaiters();
        if (!waiters.isEmpty()) {
            String link = n.context.name;
            after.add(() -> {
                NoSuchNodeException e = new NoSuchNodeException(AddressBits.text(n.address) + " on " + link + ": " + why);
                waiters.forEach(w -> w.completeExceptionally(e));
            });
        }
    }

    /** The route is no longer used: its path reference goes back to the link. */
    private static void retire(Route r, long now) {
        if (r != null) {
            r.path().release();
        }
    }

    // ---- timers ------------------------------------------------------------------------------------

    /**
     * One timer tick (every {@link Settings#tickMillis()} on the control thread): retransmissions,
     * resolution and path timeouts, revalidation, hold-time expiry and idle collection.
     */
    public void tick() {
        long now = now();
        for (LinkContext ctx : contexts.values()) {
            for (Neighbour n : ctx.map.values()) {
                List<Runnable> after = new ArrayList<>(1);
                synchronized (n) {
                    if (n.used) {
                        n.used = false;
                        n.lastUsedNanos = now;
                    }
                    process(n, now, after);
                }
                after.forEach(Runnable::run);
            }
        }
    }

    /** The timed transitions of one entry. Holds n. */
    private void process(Neighbour n, long now, List<Runnable> after) {
        if (n.removed) {
            return;
        }
        Settings s = settings;
        long retransmit = s.retransmitMillis() * 1_000_000L;
        switch (n.state) {
            case INCOMPLETE -> {
                if (now - n.deadlineNanos < 0) {
                    return;
                }
                if (n.probes >= s.maxSolicitations()) {
                    resolutionFailed(n, "no answer to " + n.probes + " solicitations", now, after);
                    return;
                }
                String why = protocol.solicit(n.context.link, n.high, n.low, null);
                if (why != null) {
                    resolutionFailed(n, why, now, after);
                    return;
                }
                if (n.probes > 0) {
                    c.retransmissions.increment();
                }
                c.solicitations.increment();
                n.probes++;
                n.deadlineNanos = now + retransmit;
            }
            case PATH_PENDING -> {
                if (now - n.deadlineNanos >= 0) {
                    n.pathGeneration++;
                    pathFailed(n, "no PathRecord answer within " + s.pathTimeoutMillis() + " ms", now, after);
                }
            }
            case RESOLVED -> {
                if (n.permanent) {
                    return;
                }
                long confirmedAge = now - n.confirmedNanos;
                boolean usedSinceConfirmed = n.lastUsedNanos - n.confirmedNanos > 0;
                if (confirmedAge >= s.revalidateMillis() * 1_000_000L && usedSinceConfirmed) {
                    c.revalidations.increment();
                    n.state(NeighbourState.STALE, now);
                    n.probes = 0;
                    n.deadlineNanos = now;
                    revalidate(n, now, after);
                } else if (now - n.lastUsedNanos >= s.idleMillis() * 1_000_000L
                        && confirmedAge >= s.idleMillis() * 1_000_000L) {
                    collect(n, "idle", after);
                }
            }
            case STALE -> revalidate(n, now, after);
            case FAILED -> {
                if (now - n.deadlineNanos < 0) {
                    return;
                }
                if (n.permanent) {
                    n.failure = null;
                    after.add(startPath(n, now, false));
                } else {
                    collect(n, "failed", after);
                }
            }
        }
    }

    /** A STALE entry: unicast probes to the cached address, then broadcast solicitations, then FAILED. */
    private void revalidate(Neighbour n, long now, List<Runnable> after) {
        if (now - n.deadlineNanos < 0) {
            return;
        }
        Settings s = settings;
        if (n.probes >= s.unicastProbes() + s.maxSolicitations()) {
            resolutionFailed(n, "revalidation: no answer to " + n.probes + " probes", now, after);
            return;
        }
        boolean unicast = n.probes < s.unicastProbes() && n.route != null;
        String why = protocol.solicit(n.context.link, n.high, n.low, unicast ? n.route : null);
        if (why != null) {
            resolutionFailed(n, why, now, after);
            return;
        }
        if (unicast) {
            c.probes.increment();
        } else {
            c.solicitations.increment();
        }
        n.probes++;
        n.deadlineNanos = now + s.retransmitMillis() * 1_000_000L;
    }

    private void resolutionFailed(Neighbour n, String why, long now, List<Runnable> after) {
        c.resolutionFailures.increment();
        int dropped = n.queued();
        fail(n, why, c.droppedResolutionFailed, now, after);
        String line = LogLines.limit(failureLog, family + " neighbour " + AddressBits.text(n.address) + " on " + n.context.name
                + " FAILED: " + why + (dropped > 0 ? "; " + dropped + " queued frames dropped" : ""));
        String link = n.context.name;
        after.add(() -> {
            if (line != null) {
                reporter.info(line);
            }
            reporter.event(IpoibEvents.NEIGHBOUR_FAILED, Map.of(IpoibEvents.LINK, link,
                    IpoibEvents.ADDRESS, AddressBits.text(n.address), IpoibEvents.REASON, why));
        });
    }

    private void collect(Neighbour n, String why, List<Runnable> after) {
        c.collected.increment();
        markRemoved(n, c.droppedFlushed, why, after);
        after.add(() -> n.context.map.remove(n));
    }

    // ---- queries and administration ----------------------------------------------------------------

    /** The path information of a neighbour (design §3.2): now, later, or no such node. */
    public PathInfoAnswer pathInfo(IpoibLink link, long high, long low) {
        if (link == null || link.state() != LinkState.UP || closed) {
            return new PathInfoAnswer.NoSuchNode(link == null ? "no such interface"
                    : "interface " + link.name() + " is " + link.state());
        }
        LinkContext ctx = contexts.get(link.name());
        if (ctx == null || ctx.link != link) {
            ctx = linkUp(link);
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            long now = now();
            Neighbour n = ctx.map.get(high, low);
            if (n == null || n.removed) {
                String why = protocol.cannotResolve(link, high, low);
                if (why != null) {
                    return new PathInfoAnswer.NoSuchNode(why);
                }
                n = getOrCreate(ctx, high, low, now);
                if (n == null) {
                    return new PathInfoAnswer.NoSuchNode("the neighbour table of " + link.name() + " is full");
                }
            }
            boolean kick = false;
            CompletableFuture<PathInfo> waiter = new CompletableFuture<>();
            synchronized (n) {
                if (n.removed) {
                    continue;
                }
                Route r = n.route;
                if (r != null) {
                    return new PathInfoAnswer.Ready(info(r.record()));
                }
                if (n.state == NeighbourState.FAILED) {
                    if (now - n.deadlineNanos < 0) {
                        return new PathInfoAnswer.NoSuchNode(n.failure);
                    }
                    kick = restart(n, now);
                }
                n.addWaiter(waiter);
                if (n.state == NeighbourState.INCOMPLETE && n.probes == 0) {
                    kick = true;
                }
            }
            if (kick) {
                kick(n);
            }
            return new PathInfoAnswer.Pending(waiter);
        }
        return new PathInfoAnswer.NoSuchNode("the entry of " + address(high, low).getHostAddress() + " keeps changing");
    }

    /** Snapshots of the entries of a link, or of every link when {@code linkName} is null. */
    public List<NeighbourEntry> neighbours(String linkName) {
        long now = now();
        List<NeighbourEntry> out = new ArrayList<>();
        for (LinkContext ctx : contexts.values()) {
            if (linkName != null && !linkName.equals(ctx.name)) {
                continue;
            }
            for (Neighbour n : ctx.map.values()) {
                synchronized (n) {
                    if (n.removed) {
                        continue;
                    }
                    Route r = n.route;
                    out.add(new NeighbourEntry(ctx.name, n.address, n.linkAddress == null ? null : flagged(n),
                            r == null ? null : r.record().destinationLid(), r == null ? -1 : r.serviceLevel(), n.state,
                            Duration.ofNanos(Math.max(0, now - n.confirmedNanos)), n.queued(), n.permanent));
                }
            }
        }
        out.sort(Comparator.comparing(NeighbourEntry::link).thenComparing(e -> AddressBits.text(e.address())));
        return out;
    }

    /** Removes the non-permanent entries of a link (every link when null); returns how many. */
    public int flush(String linkName) {
        int count = 0;
        for (LinkContext ctx : contexts.values()) {
            if (linkName != null && !linkName.equals(ctx.name)) {
                continue;
            }
            List<Runnable> after = new ArrayList<>();
            for (Neighbour n : ctx.map.values()) {
                boolean removed = false;
                synchronized (n) {
                    if (!n.permanent && !n.removed) {
                        markRemoved(n, c.droppedFlushed, "flushed", after);
                        removed = true;
                    }
                }
                if (removed) {
                    ctx.map.remove(n);
                    count++;
                }
            }
            after.forEach(Runnable::run);
        }
        return count;
    }

    /**
     * Adds (or replaces) a permanent entry; it is resolved (PathRecord) now when the link is UP,
     * else when it comes up.
     */
    public void addPermanent(String linkName, long high, long low, LinkAddress address) {
        String notANeighbour = notANeighbour(linkName, high, low);
        if (notANeighbour != null) {
            throw new IllegalArgumentException(AddressBits.text(address(high, low)) + " cannot be a neighbour: "
                    + notANeighbour);
        }
        LinkAddress peer = address.withoutFlags();
        Map<Key, LinkAddress> statics = permanents.computeIfAbsent(linkName, k -> new ConcurrentHashMap<>());
        int limit = permanentLimit();
        synchronized (statics) {
            if (!statics.containsKey(new Key(high, low)) && statics.size() >= limit) {
                throw new IllegalArgumentException("the permanent entries of " + linkName + " are limited to " + limit
                        + " (half of maxEntries " + settings.maxEntries()
                        + ", so that dynamic resolution always has room); delete one first");
            }
            statics.put(new Key(high, low), peer);
        }
        LinkContext ctx = contexts.get(linkName);
        if (ctx != null) {
            installPermanent(ctx, high, low, peer, now());
        }
    }

    private void installPermanent(LinkContext ctx, long high, long low, LinkAddress address, long now) {
        Neighbour n = new Neighbour(ctx, high, low, address(high, low), now);
        Neighbour old;
        synchronized (ctx.map) {
            old = ctx.map.get(high, low);
            if (old != null) {
                ctx.map.replace(old, n);
            } else {
                ctx.map.put(n);
            }
        }
        List<Runnable> after = new ArrayList<>(2);
        if (old != null) {
            synchronized (old) {
                // Frames waiting on the old entry move to the permanent one, in order.
                List<Neighbour.Pending> pending = old.removed ? List.of() : old.drainQueue();
                markRemoved(old, c.droppedFlushed, "replaced by a permanent entry", after);
                synchronized (n) {
                    for (Neighbour.Pending p : pending) {
                        n.enqueue(p.etherType(), p.frame(), Integer.MAX_VALUE);
                    }
                }
            }
        }
        synchronized (n) {
            n.permanent = true;
            n.linkAddress = address;
            after.add(startPath(n, now, false));
        }
        after.forEach(Runnable::run);
    }

    /** Permanent entries per link: half the table, the other half stays for resolution. */
    private int permanentLimit() {
        return Math.max(1, settings.maxEntries() / 2);
    }

    /**
     * Why an address can never be a neighbour (multicast, the limited broadcast, unspecified,
     * loopback), or null; the protocol adds its own reasons (e.g. the interface's own address).
     */
    private String notANeighbour(String linkName, long high, long low) {
        InetAddress a = address(high, low);
        if (a.isMulticastAddress()) {
            return "it is a multicast address";
        }
        if (!ipv6 && low == 0xFFFF_FFFFL) {
            return "it is the limited broadcast address";
        }
        if (a.isAnyLocalAddress()) {
            return "it is the unspecified address";
        }
        if (a.isLoopbackAddress()) {
            return "it is a loopback address";
        }
        return protocol.notANeighbour(linkName, high, low);
    }

    /** Removes one entry, permanent or not; returns whether there was one. */
    public boolean remove(String linkName, long high, long low) {
        Map<Key, LinkAddress> statics = permanents.get(linkName);
        boolean wasStatic = statics != null && statics.remove(new Key(high, low)) != null;
        LinkContext ctx = contexts.get(linkName);
        Neighbour n = ctx == null ? null : ctx.map.get(high, low);
        if (n == null) {
            return wasStatic;
        }
        List<Runnable> after = new ArrayList<>(1);
        boolean removed;
        synchronized (n) {
            removed = !n.removed;
            markRemoved(n, c.droppedFlushed, "removed", after);
        }
        ctx.map.remove(n);
        after.forEach(Runnable::run);
        return removed || wasStatic;
    }

    /** Whether the link has a table (it is UP as far as the engine knows). */
    public boolean knows(String linkName) {
        return contexts.containsKey(linkName);
    }

    /** Counters as a map, for the service. */
    public Map<String, Long> counterSnapshot() {
        return new LinkedHashMap<>(counters.snapshot());
    }

    /** Drops every table (queued frames counted), fails the waiters and closes the handles. */
    @Override
    public synchronized void close() {
        closed = true;
        for (LinkContext ctx : List.copyOf(contexts.values())) {
            contexts.remove(ctx.name, ctx);
            closeContext(ctx, "resolver stopped");
        }
    }

    private static String message(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }
}
