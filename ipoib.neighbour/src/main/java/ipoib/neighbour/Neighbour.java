package ipoib.neighbour;

import ipoib.api.resolve.AddressBits;
import ipoib.api.LinkAddress;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.PathInfo;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One neighbour entry. The send path reads {@link #route} without locking; everything else is
 * guarded by the entry's own monitor, which no other neighbour shares. Lock order: a table's
 * map before an entry, never the other way round.
 */
final class Neighbour {
    final long high;
    final long low;
    final InetAddress address;
    final LinkContext context;

    /** Non-null while the entry can send (RESOLVED or STALE). */
    volatile Route route;
    /** Set by the send path, cleared by the timer, which notes the time. */
    volatile boolean used;

    // Guarded by this.
    NeighbourState state = NeighbourState.INCOMPLETE;
    /** The peer's address without capability flags: its identity. */
    LinkAddress linkAddress;
    /**
     * The capability flags the peer announced last (its address's first octet): carried on the
     * route so that a connected-mode link knows which peers accept a connection.
     */
    int flags;

    /** The address with the flags the peer announced: what its route carries to the link. Holds this. */
    LinkAddress flaggedAddress() {
        LinkAddress a = linkAddress;
        return a == null || flags == a.flags() ? a : new LinkAddress(flags, a.qpn(), a.gid());
    }
    boolean permanent;
    boolean removed;

    long createdNanos;
    long confirmedNanos;
    long lastUsedNanos;
    long stateSinceNanos;
    long deadlineNanos;
    int probes;
    int pathGeneration;
    String failure;
    /** Created at the first frame that has to wait: most entries never queue. */
    private PendingFrames queue;
    private List<CompletableFuture<PathInfo>> waiters;

    Neighbour(LinkContext context, long high, long low, InetAddress address, long now) {
        this.context = context;
        this.high = high;
        this.low = low;
        this.address = address;
        this.createdNanos = now;
        this.confirmedNanos = now;
        this.lastUsedNanos = now;
        this.stateSinceNanos = now;
        this.deadlineNanos = now;
    }

    void state(NeighbourState next, long now) {
        if (state != next) {
            state = next;
            stateSinceNanos = now;
        }
    }

    /** Queues a copy of the frame; false when the queue is full. */
    boolean enqueue(int etherType, MemorySegment frame, int limit) {
        if (queue == null) {
            queue = new PendingFrames(limit);
        }
        return queue.add(etherType, frame, limit);
    }

    int queued() {
        return queue == null ? 0 : queue.size();
    }

    /** Takes every queued frame, in order. */
    List<PendingFrames.Pending> drainQueue() {
        return queue == null ? List.of() : queue.drain();
    }

    void addWaiter(CompletableFuture<PathInfo> waiter) {
        if (waiters == null) {
            waiters = new ArrayList<>(2);
        }
        waiters.add(waiter);
    }

    /** Takes the path-information waiters. */
    List<CompletableFuture<PathInfo>> drainWaiters() {
        if (waiters == null || waiters.isEmpty()) {
            return List.of();
        }
        List<CompletableFuture<PathInfo>> out = waiters;
        waiters = null;
        return out;
    }

    @Override
    public String toString() {
        return AddressBits.text(address) + " on " + context.name;
    }
}
