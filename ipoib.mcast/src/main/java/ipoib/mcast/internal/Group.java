package ipoib.mcast.internal;

import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.mcast.GroupInfo;
import ipoib.runtime.Cancellable;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One IB multicast group as a link knows it: whether it exists, the port's membership, what is
 * wanted of it (listeners: FullMember; router mode: NonMember; traffic: SendOnlyNonMember), the
 * join state machine, and the frames waiting for a join.
 *
 * <p>Threads: the control thread changes everything. Senders read {@link #sendable} and
 * {@link #existence} without locks, and take the group's monitor to queue a frame; every field
 * the monitor guards is marked so.
 */
final class Group {

    /** What the link knows of the group's existence (RFC 4391 §10: cached, kept current by traps). */
    enum Existence { UNKNOWN, EXISTS, ABSENT }

    /** Where the join state machine is. */
    enum Phase {
        /** Nothing under way. */
        IDLE,
        /** A join (or create) is with the SA. */
        JOINING,
        /** A leave is with the SA. */
        LEAVING,
        /** Waiting for the backoff before the next attempt. */
        RETRY_WAIT,
        /** A send-only join failed its every attempt: frames are refused until the rest is over. */
        HOLDOFF
    }

    /** A listener that joined the IP group and waits for the port's FullMember join. */
    record ListenerWaiter(InetAddress address, CompletableFuture<GroupInfo> future) {}

    /**
     * A frame waiting for the join: a private copy, since the caller keeps its segment.
     * {@code viaRouters}: the frame's own group does not exist and it waits for the all-routers
     * group (§10), so it counts as sent via all-routers only when it is sent.
     */
    record QueuedFrame(int etherType, MemorySegment packet, boolean beyondLinkLocal, boolean ipv6, boolean viaRouters) {}

    final Mgid mgid;
    final boolean ipv6;
    /** The IP group first seen for this MGID; null for a group found by router mode whose IPv6 group is unknown. */
    volatile InetAddress address;
    volatile Existence existence = Existence.UNKNOWN;
    /** The port holds a membership, the link has the group's route, and the queue is drained. */
    volatile boolean sendable;
    /** The membership the port holds at the SA, as far as the manager knows. */
    volatile JoinState held;
    volatile McMemberRecord record;
    volatile Phase phase = Phase.IDLE;

    // Control thread only.
    final Map<InetAddress, Integer> listeners = new LinkedHashMap<>();
    boolean routerWanted;
    JoinState requested;
    int failures;
    int leaveFailures;
    /** Why the last join failed, for the state a user sees; null after a success. */
    String lastFailure;
    /** Changes with every request: an answer carrying an older token is stale. */
    int token;
    boolean lookupInFlight;
    /** Changes with every lookup and reset: a lookup answer carrying an older one is stale. */
    int lookupGeneration;
    Cancellable timer;
    /** When {@link #timer} fires, on the control loop's clock. */
    long timerDueNanos;
    /** Listeners whose join has not completed yet: each learns the outcome. */
    final List<ListenerWaiter> listenerWaiters = new ArrayList<>();
    final List<CompletableFuture<Void>> leaveWaiters = new ArrayList<>();
    final List<CompletableFuture<Existence>> existenceWaiters = new ArrayList<>();

    // Guarded by this (senders and the control thread).
    final ArrayDeque<QueuedFrame> queue = new ArrayDeque<>();
    /** Traffic asks for a SendOnlyNonMember join: set by the sender that queued the first frame. */
    boolean sendWanted;
    /** Replaced or forgotten: a sender holding it must look the group up again. */
    boolean retired;

    /** A frame went out on the group since the last sweep of {@link SendOnlyReaper} (any thread). */
    private volatile boolean sent;
    /** Sweeps in a row that found the send-only membership unused (control thread). */
    int idleSweeps;
    /** The send-only membership is being left for being unused (control thread; a new join clears it). */
    boolean sendOnlyUnused;

    /** A sender used the group: a read, and a write only on the first frame of a sweep period. */
    void markSent() {
        if (!sent) {
            sent = true;
        }
    }

    /** Whether a frame went out since the last call (control thread). */
    boolean takeSent() {
        boolean was = sent;
        if (was) {
            sent = false;
        }
        return was;
    }

    Group(Mgid mgid, boolean ipv6, InetAddress address) {
        this.mgid = mgid;
        this.ipv6 = ipv6;
        this.address = address;
    }

    int listenerCount() {
        int n = 0;
        for (int c : listeners.values()) {
            n += c;
        }
        return n;
    }

    /**
     * The membership the group's users need: the strongest wins; a held send-only membership is kept.
     *
     * @param sendOnly the membership a sender takes on this link
     */
    JoinState wanted(JoinState sendOnly) {
        if (!listeners.isEmpty()) {
            return JoinState.FULL_MEMBER;
        }
        if (routerWanted) {
            return JoinState.NON_MEMBER;
        }
        if (LinkContext.isSendOnly(held) && !sendOnlyUnused) {
            // Traffic made the port a sender of the group: it stays one until the link goes DOWN,
            // the SM forgets the joins, the group is deleted, or no frame used it for the idle
            // time (SendOnlyReaper, as Linux reaps its send-only groups).
            return held;
        }
        synchronized (this) {
            return sendWanted ? sendOnly : null;
        }
    }

    /** The group does not exist, as far as the link knows (the audit forgets it again). */
    void markAbsent() {
        existence = Existence.ABSENT;
    }

    /** Tells those who asked whether the group exists. */
    void completeExistence(Existence e) {
        for (CompletableFuture<Existence> w : existenceWaiters) {
            w.complete(e);
        }
        existenceWaiters.clear();
    }

    void completeLeaveWaiters() {
        for (CompletableFuture<Void> w : leaveWaiters) {
            w.complete(null);
        }
        leaveWaiters.clear();
    }

    void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    synchronized int queued() {
        return queue.size();
    }

    /** Whether nothing is wanted of the group and nothing is under way: it may be forgotten. */
    boolean idle() {
        synchronized (this) {
            if (sendWanted || !queue.isEmpty()) {
                return false;
            }
        }
        return listeners.isEmpty() && !routerWanted && held == null && phase == Phase.IDLE && !lookupInFlight
                && listenerWaiters.isEmpty() && leaveWaiters.isEmpty() && existenceWaiters.isEmpty();
    }
}
