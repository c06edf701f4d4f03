package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.link.internal.capture.LinkCapture;
import ipoib.runtime.Clock;
import ipoib.runtime.CountCells;
import ipoib.runtime.SpinLock;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The datagram (UD) send side of one UP period, what Linux's tx_ring holds: the send buffers (the
 * start of the link's registered block), a stack of the free ones (not a ring: completions return
 * buffers in any order), the send completion queue, and the handle each buffer was posted with,
 * for the reaper. Any thread may send; nothing is allocated per frame. Connected mode's
 * counterpart is {@link ipoib.link.internal.cm.CmFrameSender}.
 *
 * <p>Send completions are never waited on: senders reclaim them when free buffers run low, as
 * Linux's IPoIB polls its send CQ from the transmit path, so no thread wakes per packet.
 *
 * <p>Bursts ({@link #beginBurst}): one thread at a time may queue its frames and post them as one
 * list ({@code xmit_more}); other threads keep posting one by one, so they are never held back.
 */
final class UdSender {
    private static final int BATCH = 256;
    /** Frames one burst posts at most per list (Linux's NAPI weight; a longer burst posts in several). */
    static final int BURST = 64;
    private static final VarHandle BURST_OWNER;

    static {
        try {
            BURST_OWNER = MethodHandles.lookup().findVarHandle(UdSender.class, "burstOwner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LinkEngine engine;
    /** When sends were posted, for the transmit watchdog. */
    private final Clock clock;
    private final LinkStatistics stats;
    private final CompletionQueue sendCq;
    private final UdQueuePair qp;
    private final MemoryRegion region;
    private final MemorySegment buffers;
    private final int bufferSize;
    private final int mtu;
    private final QKey qkey;
    /** The batch senders reclaim into; guarded by {@link #freeLock}. */
    private final WorkCompletions sendBatch = new WorkCompletions(BATCH);
    /** Guards the free stack, the reclaim and the send counts: a few instructions each time. */
    private final SpinLock freeLock = new SpinLock();
    // Free send buffers: a stack of indices guarded by freeLock (senders pop, the reclaim pushes).
    private final int[] freeSend;
    /** Senders reclaim send completions when fewer buffers than this are free (a quarter of the pool). */
    private final int reclaimThreshold;
    private int freeTop;
    /**
     * When each send buffer was taken, for the watchdog: the number of the watchdog's look
     * ({@link #look}) it was taken after, not a clock read per frame.
     */
    private final long[] sendPostedAt;
    /**
     * The number of the watchdog's last look ({@link #stuckSends}), which sends stamp their
     * buffers with: read per frame, written once per transmit timeout. A buffer stamped with
     * look {@code k} was taken between look {@code k} and look {@code k + 1}: once look
     * {@code k + 1} has passed, it has been out at least since then.
     */
    private volatile long look;
    /** When the last two looks were: {@code lookTimes[k & 1]} is look {@code k}'s time. */
    private final long[] lookTimes = new long[2];
    /** Packets and octets sent in this UP period: written under {@link #freeLock}. */
    private final CountCells sent;
    /** The handle each send buffer is posted with, until its completion is reclaimed. */
    private final SendHandles sendHandles;
    /** The thread whose burst is open, or null; only it touches the burst's list. */
    @SuppressWarnings("unused") // through BURST_OWNER
    private volatile Thread burstOwner;
    private final SendWorkRequests burst = new SendWorkRequests(BURST);
    private final boolean[] burstMulticast = new boolean[BURST];
    /** Free buffers the burst's owner took in one go (under the lock once, not per frame). */
    private final int[] burstBuffers = new int[STASH];
    private int burstBufferCount;
    /** Send buffers a burst takes from the free stack at a time. */
    static final int STASH = 16;

    /** @param buffers the registered block whose first {@code sendCount} buffers are the send buffers */
    UdSender(LinkEngine engine, CompletionQueue sendCq, UdQueuePair qp, MemoryRegion region, MemorySegment buffers,
             int sendCount, int bufferSize, int mtu, QKey qkey) {
        this.engine = engine;
        this.clock = engine.control().clock();
        this.stats = engine.stats;
        this.sendCq = sendCq;
        this.qp = qp;
        this.region = region;
        this.buffers = buffers;
        this.bufferSize = bufferSize;
        this.mtu = mtu;
        this.qkey = qkey;
        this.freeSend = new int[sendCount];
        this.reclaimThreshold = Math.max(1, sendCount / 4);
        this.sendPostedAt = new long[sendCount];
        this.sendHandles = new SendHandles(sendCount);
        this.lookTimes[0] = clock.nanoTime();
        this.sent = stats.openTx();
        for (int i = 0; i < sendCount; i++) {
            freeSend[i] = i;
        }
        freeTop = sendCount;
    }

    private long sendOffset(int index) {
        return (long) index * bufferSize;
    }

    /**
     * Copies the frame into a free send buffer and posts it, to the path's current handle when
     * {@code path} is given, else to {@code group}.
     */
    TransmitResult send(PathEntry path, AddressHandle group, Qpn remoteQpn, int etherType, MemorySegment payload,
                        boolean multicast) {
        long length = payload.byteSize();
        if (length > mtu) {
            return stats.drop(TransmitResult.DROPPED_TOO_BIG);
        }
        boolean inBurst = burstOwner == Thread.currentThread();
        // A single send is counted when it takes its buffer (under the lock it takes anyway) and
        // uncounted if it fails; a burst's frames are counted when the burst is posted.
        int index = inBurst ? takeForBurst() : take(length, path, group);
        if (index == NO_ROUTE) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        if (index < 0) {
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        AddressHandle destination;
        if (!inBurst) {
            destination = sendHandles.get(index);
        } else if (path != null) {
            destination = path.handleFor(sendHandles, index);
            if (destination == null) {
                release(index, inBurst, length);
                return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
            }
        } else {
            destination = group;
            sendHandles.set(index, group);
        }
        long at = sendOffset(index);
        int frameLength = (int) length + EncapsulationHeader.LENGTH;
        EncapsulationHeader.write(buffers, at, etherType);
        MemorySegment.copy(payload, 0, buffers, at + EncapsulationHeader.LENGTH, length);
        sendPostedAt[index] = look;
        // Captured before posting, as Linux's taps see a frame before the driver's transmit
        // (net/core/dev.c, xmit_one: dev_queue_xmit_nit, then netdev_start_xmit): the loopback
        // may deliver it, and the reply be captured, before postSend returns; and the buffer is
        // reused once the send completes.
        LinkCapture capture = engine.captures().running();
        int slot = capture == null ? -1 : capture.claim();
        if (slot >= 0) {
            Gid to = path != null ? path.destination : group.vector() == null ? null : group.vector().destinationGid();
            capture.fillSent(slot, remoteQpn.value(), to, buffers, at, frameLength);
            capture.commit(slot);
        }
        if (inBurst) {
            if (slot < 0) {
                burstMulticast[burst.count()] = multicast;
                burst.add(index, region, at, frameLength, destination, remoteQpn, qkey);
                if (!burst.hasRoom()) {
                    postBurst();
                }
                return TransmitResult.SENT;
            }
            postBurst(); // a captured frame is posted alone, after the frames queued before it
        }
        boolean posted;
        try {
            posted = qp.postSend(index, region, at, frameLength, destination, remoteQpn, qkey);
        } catch (VerbsException e) {
            // The provider went away under us: the frame is lost.
            release(index, inBurst, length);
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        if (!posted) {
            release(index, inBurst, length);
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        if (inBurst) {
            freeLock.lock();
            try {
                countSent(1, length);
            } finally {
                freeLock.unlock();
            }
        }
        if (multicast) {
            stats.txMulticast.increment();
        }
        return TransmitResult.SENT;
    }

    /** What {@link #take} returns when the path has no handle (the entry died). */
    private static final int NO_ROUTE = -2;

    /**
     * A free buffer for a single send, counted as sent, with the handle it goes out with (the
     * path's current one, else the group's) recorded for the reaper; -1 when no buffer is free,
     * {@link #NO_ROUTE} when the path has no handle. Recorded under the lock, which the reaper
     * takes before it scans ({@link #reclaimCompletedSends}), and the path's handle is replaced
     * before the old one is handed to the reaper: either the scan sees this buffer's handle, or
     * this read sees the replacement. (Outside the lock that took a fence per frame; see
     * {@link PathEntry#handleFor}, which the burst's frames still use.)
     */
    private int take(long length, PathEntry path, AddressHandle group) {
        freeLock.lock();
        try {
            if (freeTop < reclaimThreshold) {
                reclaimSends();
            }
            if (freeTop == 0) {
                return -1;
            }
            AddressHandle handle = path != null ? path.handle : group;
            if (handle == null) {
                return NO_ROUTE;
            }
            int index = freeSend[--freeTop];
            sendHandles.setLocked(index, handle);
            countSent(1, length);
            return index;
        } finally {
            freeLock.unlock();
        }
    }

    /**
     * A free buffer for the burst's owner, from those it took in one go ({@value #STASH} at a
     * time, one lock for them all); -1 when none is free.
     */
    private int takeForBurst() {
        if (burstBufferCount == 0) {
            freeLock.lock();
            try {
                if (freeTop < reclaimThreshold) {
                    reclaimSends();
                }
                int n = Math.min(STASH, freeTop);
                freeTop -= n;
                long now = look;
                for (int i = 0; i < n; i++) {
                    int index = freeSend[freeTop + i];
                    burstBuffers[i] = index;
                    // Out of the free stack from now on: the watchdog must not take an old look
                    // of an unused one for a stuck send.
                    sendPostedAt[index] = now;
                }
                burstBufferCount = n;
            } finally {
                freeLock.unlock();
            }
            if (burstBufferCount == 0) {
                return -1;
            }
        }
        return burstBuffers[--burstBufferCount];
    }

    /** Gives back the buffers the burst took and did not use; its owner only. */
    private void returnBurstBuffers() {
        if (burstBufferCount > 0) {
            freeLock.lock();
            try {
                for (int i = 0; i < burstBufferCount; i++) {
                    freeSend[freeTop++] = burstBuffers[i];
                }
            } finally {
                freeLock.unlock();
            }
            burstBufferCount = 0;
        }
    }

    /** The buffer of a frame that was not sent goes back; a single send is uncounted. */
    private void release(int index, boolean inBurst, long length) {
        sendHandles.clear(index);
        freeLock.lock();
        try {
            freeSend[freeTop++] = index;
            if (!inBurst) {
                countSent(-1, -length);
            }
        } finally {
            freeLock.unlock();
        }
    }

    /** Counts frames sent (payload octets, without the header); the caller holds {@link #freeLock}. */
    private void countSent(int frames, long octets) {
        sent.add(LinkStatistics.PACKETS, frames);
        sent.add(LinkStatistics.BYTES, octets);
    }

    /** The period's send counts end in the link's adders (when it goes down). */
    void closeCounts() {
        freeLock.lock();
        try {
            stats.close(sent);
        } finally {
            freeLock.unlock();
        }
    }

    /**
     * Opens a burst for the calling thread; false when one is open already (another thread's, or
     * this thread's own: a nested burst joins the outer one, whose end posts it).
     */
    boolean beginBurst() {
        return BURST_OWNER.compareAndSet(this, null, Thread.currentThread());
    }

    /** Posts the calling thread's burst and closes it; nothing when it holds none. */
    void endBurst() {
        if (burstOwner != Thread.currentThread()) {
            return;
        }
        postBurst();
        returnBurstBuffers();
        burstOwner = null;
    }

    /**
     * Posts the queued frames as one list; frames the provider does not take are dropped and
     * counted (their buffers return to the pool). The burst's owner only.
     */
    private void postBurst() {
        int n = burst.count();
        if (n == 0) {
            return;
        }
        int posted;
        boolean providerGone = false;
        try {
            posted = qp.postSend(burst);
        } catch (VerbsException e) {
            posted = 0;
            providerGone = true;
        }
        long octets = 0;
        int multicast = 0;
        for (int i = 0; i < posted; i++) {
            octets += burst.length(i) - EncapsulationHeader.LENGTH;
            if (burstMulticast[i]) {
                multicast++;
            }
        }
        freeLock.lock();
        try {
            countSent(posted, octets);
            for (int i = posted; i < n; i++) {
                int index = (int) burst.workRequestId(i);
                sendHandles.clear(index);
                freeSend[freeTop++] = index;
            }
        } finally {
            freeLock.unlock();
        }
        if (multicast > 0) {
            stats.txMulticast.add(multicast);
        }
        for (int i = posted; i < n; i++) {
            stats.drop(providerGone ? TransmitResult.DROPPED_LINK_DOWN : TransmitResult.DROPPED_NO_BUFFER);
        }
        burst.clear();
    }

    /** Returns the buffers of completed sends to the free stack; the caller holds {@link #freeLock}. */
    private void reclaimSends() {
        int n;
        do {
            try {
                n = sendCq.poll(sendBatch);
            } catch (VerbsException providerGone) {
                return;
            }
            for (int i = 0; i < n; i++) {
                CompletionStatus status = sendBatch.status(i);
                if (status != CompletionStatus.SUCCESS && status != CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                    stats.txErrors.increment();
                }
                int index = (int) sendBatch.workRequestId(i);
                sendHandles.clear(index);
                freeSend[freeTop++] = index;
            }
        } while (n == sendBatch.capacity());
    }

    /** Reclaims completed sends now (the reaper and the watchdog, before they look at the buffers). */
    void reclaimCompletedSends() {
        freeLock.lock();
        try {
            reclaimSends();
        } finally {
            freeLock.unlock();
        }
    }

    /** Whether a send posted with the handle has not completed yet (as far as reclaimed). */
    boolean inUse(AddressHandle handle) {
        return sendHandles.inUse(handle);
    }

    /**
     * Send buffers certainly outstanding longer than the transmit timeout (the design document's
     * tx timeout), and a new look. A buffer taken after the last look may have been taken just
     * now, so it counts only once a later look has passed and the time since that look exceeds
     * the timeout: a buffer out at one look (a send being posted, the stash of an open burst) is
     * not reported, a stuck one is reported one or two looks after it got stuck. (Counting from
     * the look before its post reported every buffer out at the moment of a look once the looks
     * were a timeout apart: "1 send buffers not returned" under steady traffic, 16 with bursts.)
     */
    int stuckSends(long timeoutNanos) {
        int sendCount = sendPostedAt.length;
        boolean[] free = new boolean[sendCount];
        freeLock.lock();
        try {
            reclaimSends();
            for (int i = 0; i < freeTop; i++) {
                free[freeSend[i]] = true;
            }
        } finally {
            freeLock.unlock();
        }
        long now = clock.nanoTime();
        long last = look;
        int stuck = 0;
        for (int i = 0; i < sendCount; i++) {
            if (!free[i] && outAtLeast(sendPostedAt[i], last, now) > timeoutNanos) {
                stuck++;
            }
        }
        lookTimes[(int) (last + 1) & 1] = now;
        look = last + 1;
        return stuck;
    }

    /**
     * The least time a buffer taken after look {@code taken} has been out at {@code now}, the
     * last look being {@code last}: since look {@code taken + 1}, or nothing known yet.
     */
    private long outAtLeast(long taken, long last, long now) {
        if (taken >= last) {
            return 0;
        }
        // Look taken + 1 is the last one or the one before; for older buffers the one before the
        // last bounds it from below as well.
        long next = Math.min(taken + 1, last);
        return now - lookTimes[(int) Math.max(next, last - 1) & 1];
    }
}
