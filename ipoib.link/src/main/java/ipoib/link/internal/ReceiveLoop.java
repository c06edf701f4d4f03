package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.Qpn;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.ReceiveWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.codec.DecodeException;
import ipoib.codec.iba.Grh;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.codec.ipoib.UdReceiveBuffer;
import ipoib.link.internal.capture.LinkCapture;
import ipoib.runtime.CountCells;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * The receive side of one UP period of a link: the receive buffers (the part of the registered
 * block after the send buffers), the receive thread {@code ipoib-rx-<name>} that polls the
 * completion queue, drops the port's own multicast, counts and dispatches each frame to the
 * {@link FrameHandler}s of its EtherType through a read-only view, and posts the buffer again.
 */
public final class ReceiveLoop {
    /**
     * Completions one poll takes at most: NAPI's budget (Linux's IPoIB polls with a weight of 64,
     * drivers/infiniband/ulp/ipoib/ipoib_main.c {@code netif_napi_add_weight(..., ipoib_rx_poll,
     * IPOIB_NUM_WC)} and the default NAPI weight 64). A full budget means more are likely waiting:
     * the thread polls again at once; fewer means the queue ran dry and the thread waits for the
     * next completion (re-arms notification) only after one more empty poll.
     */
    public static final int BUDGET = 64;

    private final LinkEngine engine;
    private final LinkStatistics stats;
    private final CompletionQueue cq;
    private final UdQueuePair qp;
    private final MemoryRegion region;
    private final MemorySegment buffers;
    private final long firstOffset;
    private final int receiveCount;
    private final int bufferSize;
    private final Qpn qpn;
    private final Gid gid;
    private final IntSupplier ownLid;
    /** Each receive buffer as a read-only segment: what a frame handler sees of it. */
    private final MemorySegment[] receiveViews;
    private final Frame frame = new Frame();
    /**
     * Consumed buffers are re-posted as one list once this many have gathered (or the queue ran
     * dry): every re-post takes the receive queue's lock, which the senders' deliveries take
     * too, so re-posting after every small poll moved that lock's line between the cores per
     * frame (JFR: half the sender's samples on it). At most an eighth of the buffers wait, also
     * in the middle of a poll.
     */
    static final int REPOST_BATCH = 16;
    private final int repostAt;
    /** The consumed buffers waiting to be re-posted together as one list. */
    private final ReceiveWorkRequests repost = new ReceiveWorkRequests(BUDGET + REPOST_BATCH);
    private final PollingThread poller;
    /** This period's received packets and octets: written by the receive thread alone. */
    private final CountCells counts;

    /**
     * @param firstOffset where the receive buffers start in {@code buffers}
     * @param ownLid the port's current LID (own multicast is recognised by source QPN and LID)
     */
    ReceiveLoop(LinkEngine engine, LinkStatistics stats, CompletionQueue cq, UdQueuePair qp, MemoryRegion region,
                MemorySegment buffers, long firstOffset, int receiveCount, int bufferSize, Qpn qpn, Gid gid,
                IntSupplier ownLid) {
        this.engine = engine;
        this.stats = stats;
        this.cq = cq;
        this.qp = qp;
        this.region = region;
        this.buffers = buffers;
        this.firstOffset = firstOffset;
        this.receiveCount = receiveCount;
        this.bufferSize = bufferSize;
        this.qpn = qpn;
        this.gid = gid;
        this.ownLid = ownLid;
        this.repostAt = Math.max(1, Math.min(REPOST_BATCH, receiveCount / 8));
        this.receiveViews = new MemorySegment[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            receiveViews[i] = buffers.asSlice(receiveOffset(i), bufferSize).asReadOnly();
        }
        this.counts = stats.openRx();
        this.poller = new PollingThread("ipoib-rx-" + engine.name(), cq, this::pollLoop);
    }

    /** Posts every receive buffer (as lists) and starts the receive thread. */
    void start() {
        for (int i = 0; i < receiveCount; i++) {
            repost.add(i, region, receiveOffset(i), bufferSize);
            if (!repost.hasRoom()) {
                postReceives();
            }
        }
        postReceives();
        poller.start();
    }

    /** Stops the receive thread (waiting up to two seconds for it). */
    void stop() {
        poller.stop();
        stats.close(counts);
    }

    private long receiveOffset(int index) {
        return firstOffset + (long) index * bufferSize;
    }

    /**
     * Posts the collected buffers as one list (one {@code ibv_post_recv} on hardware). A buffer
     * the queue does not take is counted as a receive error, as a failed single post was.
     */
    private void postReceives() {
        int n = repost.count();
        if (n == 0) {
            return;
        }
        int posted = qp.postReceive(repost);
        if (posted < n) {
            stats.rxErrors.add(n - posted);
        }
        repost.clear();
    }

    private void pollLoop() {
        WorkCompletions batch = new WorkCompletions(BUDGET);
        boolean polledEmpty = false;
        while (poller.running()) {
            int n;
            try {
                n = cq.poll(batch);
                if (n == 0) {
                    // The queue ran dry: the gathered buffers wait for nothing more.
                    if (repost.count() > 0 && poller.running() && !repostGathered()) {
                        break;
                    }
                    if (polledEmpty) {
                        // Idle: only now wait for the next completion (NAPI re-arms the CQ here).
                        cq.await(100, TimeUnit.MILLISECONDS);
                        polledEmpty = false;
                    } else {
                        polledEmpty = true;
                        Thread.onSpinWait();
                    }
                    continue;
                }
                polledEmpty = false;
            } catch (InterruptedException e) {
                break;
            } catch (VerbsException e) {
                if (poller.running()) {
                    engine.hooks().warn("completion queue of " + engine.name() + " failed", e);
                }
                break;
            }
            for (int i = 0; i < n; i++) {
                CompletionStatus status = batch.status(i);
                int index = (int) batch.workRequestId(i);
                if (status == CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                    continue;
                }
                if (status == CompletionStatus.SUCCESS) {
                    receive(index, batch.byteLength(i), batch.sourceQpn(i), batch.sourceLid(i), batch.grhPresent(i));
                } else {
                    stats.rxErrors.increment();
                }
                repost.add(index, region, receiveOffset(index), bufferSize);
                // Within a poll too: a poll of many completions must not keep their buffers from
                // the senders until it ends (the queue would run short while they are free).
                if (repost.count() >= repostAt && poller.running() && !repostGathered()) {
                    return;
                }
            }
            engine.endOfBatch();
            if (!poller.running()) {
                repost.clear();
            } else if (n == BUDGET) {
                poller.budgetUsed();
            }
        }
    }

    /** Posts the gathered buffers; false when the provider refused them (the loop ends). */
    private boolean repostGathered() {
        try {
            postReceives();
            return true;
        } catch (VerbsException e) {
            repost.clear();
            if (poller.running()) {
                engine.hooks().warn("re-posting receive buffers of " + engine.name() + " failed", e);
            }
            return false;
        }
    }

    private void receive(int index, int byteLength, int sourceQpn, int sourceLid, boolean grh) {
        long at = receiveOffset(index);
        int frameLength = byteLength - UdQueuePair.GRH_AREA_LENGTH;
        if (frameLength < EncapsulationHeader.LENGTH) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        boolean multicast = grh && (buffers.get(ValueLayout.JAVA_BYTE, at + 24) & 0xFF) == 0xFF;
        if (multicast && sourceQpn == qpn.value() && sourceLid == ownLid.getAsInt()) {
            // Our own multicast, replicated back to us by the fabric.
            stats.rxDroppedOwn.increment();
            return;
        }
        int etherType;
        try {
            etherType = EncapsulationHeader.etherType(buffers, at + UdQueuePair.GRH_AREA_LENGTH);
        } catch (DecodeException e) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        LinkCapture capture = engine.captures().running();
        if (capture != null) {
            int slot = capture.claim();
            if (slot >= 0) {
                capture.fillReceived(slot, buffers, at, grh, sourceQpn, qpn.value(), gid, at + UdQueuePair.GRH_AREA_LENGTH,
                        frameLength);
                capture.commit(slot);
            }
        }
        FrameHandler[] handlers = engine.hooks().handlers(etherType);
        if (handlers.length == 0) {
            stats.rxDroppedNoHandler.increment();
            return;
        }
        counts.add(LinkStatistics.PACKETS, 1);
        counts.add(LinkStatistics.BYTES, frameLength - EncapsulationHeader.LENGTH);
        if (multicast) {
            stats.rxMulticast.increment();
        }
        frame.set(index, etherType, at, frameLength - EncapsulationHeader.LENGTH, sourceQpn, sourceLid, grh, multicast);
        engine.dispatch(handlers, frame);
    }

    /** The receive thread's reusable view of the frame being dispatched. */
    private final class Frame implements ReceivedFrame {
        private int index;
        private int etherType;
        private long bufferOffset;
        private int payloadLength;
        private int sourceQpn;
        private int sourceLid;
        private boolean grh;
        private boolean multicast;
        private final Grh grhView = new Grh();

        void set(int index, int etherType, long bufferOffset, int payloadLength, int sourceQpn, int sourceLid, boolean grh,
                 boolean multicast) {
            this.index = index;
            this.etherType = etherType;
            this.bufferOffset = bufferOffset;
            this.payloadLength = payloadLength;
            this.sourceQpn = sourceQpn;
            this.sourceLid = sourceLid;
            this.grh = grh;
            this.multicast = multicast;
        }

        @Override
        public int etherType() {
            return etherType;
        }

        @Override
        public MemorySegment buffer() {
            return receiveViews[index];
        }

        @Override
        public long payloadOffset() {
            return UdQueuePair.GRH_AREA_LENGTH + EncapsulationHeader.LENGTH;
        }

        @Override
        public int payloadLength() {
            return payloadLength;
        }

        @Override
        public int sourceQpn() {
            return sourceQpn;
        }

        @Override
        public int sourceLid() {
            return sourceLid;
        }

        @Override
        public boolean grhPresent() {
            return grh;
        }

        private Grh grhView() {
            try {
                return UdReceiveBuffer.grh(buffers, bufferOffset, true, grhView);
            } catch (DecodeException e) {
                return null;
            }
        }

        @Override
        public Gid sourceGid() {
            Grh v = grh ? grhView() : null;
            return v == null ? null : v.sourceGid();
        }

        @Override
        public Gid destinationGid() {
            Grh v = grh ? grhView() : null;
            return v == null ? null : v.destinationGid();
        }

        @Override
        public boolean multicast() {
            return multicast;
        }
    }
}
