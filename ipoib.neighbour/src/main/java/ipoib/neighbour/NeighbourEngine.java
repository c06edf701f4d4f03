package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkPath;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
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
 * <p>This class wires the parts and is the one entry point of ARP and ND; each part is one
 * concept: {@link SendPath} (the lock-free data path and the pending queues of a miss),
 * {@link AddressLearning} (what the protocol hears), {@link PathResolution} (PATH_PENDING: the
 * link's path), {@link EntryTimers} (retransmission, revalidation, hold time, idle collection),
 * {@link EntryEndings} (FAILED and removal), {@link NeighbourTables} (one table per UP link),
 * {@link PermanentEntries} and {@link PathInfoQueries}.
 *
 * <p><b>Threads.</b> Sends come from any thread; solicitations, path answers, timers and link
 * events run on the {@code control} executor (one thread); the protocol's input ({@link #learn})
 * comes from the link's receive thread. A resolved entry holds a reference to the link's path
 * ({@link IpoibLink#acquirePath}) and releases it when its route is retired; the link destroys
 * the address handle once the sends that used it completed, so a sender still holding the old
 * route is at worst dropped, never posted on a destroyed handle.
 */
public final class NeighbourEngine implements AutoCloseable {

    private final EngineContext engine;
    private final NeighbourTables tables;
    private final PermanentEntries permanents;
    private final EntryTimers timers;
    private final SendPath sendPath;
    private final AddressLearning learning;
    private final PathInfoQueries queries;

    /**
     * @param ipv6 the family: IPv6 keys are the address's two halves, IPv4 keys {@code (0, address)}
     * @param counters the counters the engine adds its own to (the protocol keeps its in the same set),
     *        each counted for the interface it concerns
     * @param control the executor of the control plane: one thread, tasks in order
     * @param clock nanoseconds of the control loop's clock ({@code ControlLoop.clock()}), a manual one in tests
     */
    public NeighbourEngine(boolean ipv6, Protocol protocol, Settings settings, Reporter reporter, InterfaceCounters counters,
                           Executor control, LongSupplier clock) {
        this.engine = new EngineContext(ipv6, protocol, settings, reporter, counters, control, clock);
        EntryEndings endings = new EntryEndings(engine);
        PathResolution paths = new PathResolution(engine, endings);
        this.permanents = new PermanentEntries(engine, endings, paths);
        this.tables = new NeighbourTables(engine, endings, permanents::installAll);
        this.timers = new EntryTimers(engine, endings, paths);
        this.sendPath = new SendPath(engine, tables, paths, timers);
        this.learning = new AddressLearning(engine, tables, paths);
        this.queries = new PathInfoQueries(engine, tables, paths, timers);
    }

    public Settings settings() {
        return engine.settings;
    }

    /** New knobs, used from the next event on (a running table keeps its entries). */
    public void settings(Settings next) {
        engine.settings = Objects.requireNonNull(next);
    }

    /** The totals over every interface. */
    public Counters counters() {
        return engine.all;
    }

    /** The counters per interface. */
    public InterfaceCounters interfaceCounters() {
        return engine.perInterface;
    }

    // ---- data path ---------------------------------------------------------------------------------

    /**
     * Sends a frame to a neighbour: at once when resolved, else queued (bounded) while the
     * neighbour resolves. Never blocks; allocates nothing for a resolved neighbour.
     */
    public TransmitResult send(IpoibLink link, long high, long low, int etherType, MemorySegment frame) {
        return sendPath.send(link, high, low, etherType, frame);
    }

    /**
     * A sender bound to one next hop on a link ({@link ipoib.api.resolve.NeighbourSender}): the
     * same as {@link #send} for every frame, without the table look-ups while the entry it found
     * last can send.
     */
    public ipoib.api.resolve.NeighbourSender sender(IpoibLink link, long high, long low) {
        return sendPath.bound(link, high, low);
    }

    // ---- links -------------------------------------------------------------------------------------

    /** A link is UP (idempotent for the same UP period): a fresh table, permanent entries resolved again. */
    public void linkUp(IpoibLink link) {
        tables.linkUp(link);
    }

    /** A link went DOWN or away: its table is void (queued frames dropped and counted). */
    public void linkDown(IpoibLink link) {
        tables.linkDown(link);
    }

    /** Whether the link has a table (it is UP as far as the engine knows). */
    public boolean knows(String linkName) {
        return tables.get(linkName) != null;
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
        return learning.learn(link, high, low, heard, create, confirm, true);
    }

    /**
     * {@link #learn(IpoibLink, long, long, LinkAddress, boolean, boolean)} with the Override flag
     * of a Neighbor Advertisement (RFC 4861 §7.2.5): without it, an advertisement of another
     * link-layer address does not replace a known one (it only confirms a matching one).
     */
    public boolean learn(IpoibLink link, long high, long low, LinkAddress heard, boolean create, boolean confirm,
                         boolean override) {
        return learning.learn(link, high, low, heard, create, confirm, override);
    }

    /**
     * A neighbour announced itself (a gratuitous ARP, an unsolicited Neighbor Advertisement): it
     * does so when its port's LID or SM changed, so its path may have changed too, and the link
     * queries it again at once ({@link LinkPath#refresh}) instead of waiting for revalidation to
     * find unicast unanswered. The entry keeps sending on the current path
     * meanwhile.
     *
     * @return whether a path refresh was asked (the neighbour is known and has a path)
     */
    public boolean announced(IpoibLink link, long high, long low) {
        return learning.announced(link, high, low);
    }

    /** The link-layer address of a neighbour if the table has it (for the protocol: conflicts, probes). */
    public LinkAddress linkAddressOf(IpoibLink link, long high, long low) {
        return learning.linkAddressOf(link, high, low);
    }

    // ---- timers ------------------------------------------------------------------------------------

    /**
     * One timer tick (every {@link Settings#tickMillis()} on the control thread): retransmissions,
     * resolution and path timeouts, revalidation, hold-time expiry and idle collection.
     */
    public void tick() {
        timers.tick(tables.all());
    }

    // ---- queries and administration ----------------------------------------------------------------

    /** The path information of a neighbour (design §3.2): now, later, or no such node. */
    public PathInfoAnswer pathInfo(IpoibLink link, long high, long low) {
        return queries.pathInfo(link, high, low);
    }

    /** Snapshots of the entries of a link, or of every link when {@code linkName} is null. */
    public List<NeighbourEntry> neighbours(String linkName) {
        return tables.snapshot(linkName);
    }

    /** Removes the non-permanent entries of a link (every link when null); returns how many. */
    public int flush(String linkName) {
        return tables.flush(linkName);
    }

    /**
     * Adds (or replaces) a permanent entry; it is resolved (PathRecord) now when the link is UP,
     * else when it comes up.
     *
     * @throws IllegalArgumentException when the address cannot be a neighbour, or the link has as
     *     many permanent entries as allowed (half of maxEntries)
     */
    public void addPermanent(String linkName, long high, long low, LinkAddress address) {
        permanents.add(linkName, high, low, address, tables.get(linkName));
    }

    /** Removes one entry, permanent or not; returns whether there was one. */
    public boolean remove(String linkName, long high, long low) {
        boolean wasPermanent = permanents.forget(linkName, high, low);
        return tables.remove(linkName, high, low) || wasPermanent;
    }

    /** Counters as a map, for the service. */
    public Map<String, Long> counterSnapshot() {
        return new LinkedHashMap<>(engine.all.snapshot());
    }

    /** Drops every table (queued frames counted), fails the waiters and releases the paths. */
    @Override
    public void close() {
        engine.closed = true;
        tables.closeAll();
    }
}
