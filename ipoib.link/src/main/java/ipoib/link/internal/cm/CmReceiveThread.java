package ipoib.link.internal.cm;

import ipoib.api.Gid;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.codec.DecodeException;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkStatistics;
import ipoib.link.internal.PollingThread;
import ipoib.link.internal.ReceiveLoop;
import ipoib.link.internal.capture.LinkCapture;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The thread {@code ipoib-cm-rx-<name>} of one interface's connected mode: it drains the one
 * completion queue of all its RC connections. A receive is dispatched to the EtherType's frame
 * handlers (like a UD frame, but without a GRH area; the source QPN is the peer's UD QPN) and its
 * buffer posted to the shared receive queue again; a send completion frees its buffer, and a send
 * error ends its connection ({@link ConnectedMode#sendFailed}). Allocates nothing per frame.
 */
public final class CmReceiveThread {
    /** Send work requests carry this bit in their ID; receives carry the buffer index alone. */
    static final long SEND_TAG = 1L << 40;

    private final ConnectedMode mode;
    private final LinkEngine engine;
    private final LinkStatistics stats;
    private final CompletionQueue cq;
    private final CmBuffers buffers;
    private final Gid gid;
    private final Frame frame = new Frame();
    private final PollingThread poller;

    CmReceiveThread(ConnectedMode mode, LinkEngine engine, CompletionQueue cq, CmBuffers buffers, Gid gid) {
        this.mode = mode;
        this.engine = engine;
        this.stats = engine.stats;
        this.cq = cq;
        this.buffers = buffers;
        this.gid = gid;
        this.poller = new PollingThread("ipoib-cm-rx-" + engine.name(), cq, this::pollLoop);
    }

    void start() {
        poller.start();
    }

    /** Stops the thread (waiting up to two seconds for it). */
    void stop() {
        poller.stop();
    }

    private void pollLoop() {
        WorkCompletions batch = new WorkCompletions(ReceiveLoop.BUDGET);
        while (poller.running()) {
            int n;
            try {
                n = cq.poll(batch);
                if (n == 0) {
                    cq.await(100, TimeUnit.MILLISECONDS);
                    continue;
                }
            } catch (InterruptedException | VerbsException e) {
                break;
            }
            for (int i = 0; i < n; i++) {
                long id = batch.workRequestId(i);
                CompletionStatus status = batch.status(i);
                if ((id & SEND_TAG) != 0) {
                    buffers.release((int) (id & 0xFFFF));
                    if (status != CompletionStatus.SUCCESS && status != CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                        mode.sendFailed(batch.queuePairNumber(i), status);
                    }
                    continue;
                }
                int index = (int) id;
                if (status == CompletionStatus.SUCCESS) {
                    receive(index, batch.byteLength(i), batch.queuePairNumber(i));
                } else if (status != CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                    stats.rxErrors.increment();
                }
                if (poller.running()) {
                    try {
                        buffers.repost(index);
                    } catch (VerbsException closed) {
                        return;
                    }
                }
            }
            engine.endOfBatch();
            if (n == ReceiveLoop.BUDGET) {
                poller.budgetUsed();
            }
        }
    }

    private void receive(int index, int byteLength, int localQpn) {
        CmLinkConnection c = mode.table.byLocalQpn(localQpn);
        if (c == null || byteLength < EncapsulationHeader.LENGTH) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        int etherType;
        try {
            etherType = EncapsulationHeader.etherType(buffers.block(), CmBuffers.receiveOffset(index));
        } catch (DecodeException e) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        c.lastUsedNanos = engine.control().clock().nanoTime();
        LinkCapture capture = engine.captures().running();
        if (capture != null) {
            int slot = capture.claim();
            if (slot >= 0) {
                long at = CmBuffers.receiveOffset(index);
                capture.fillReceived(slot, buffers.block(), at, false, c.peerUdQpn, mode.udQpn(), gid, at, byteLength);
                capture.commit(slot);
            }
        }
        FrameHandler[] handlers = engine.hooks().handlers(etherType);
        if (handlers.length == 0) {
            stats.rxDroppedNoHandler.increment();
            return;
        }
        int payload = byteLength - EncapsulationHeader.LENGTH;
        c.rxPackets.increment();
        c.rxBytes.add(payload);
        stats.rxPackets.increment();
        stats.rxBytes.add(payload);
        frame.set(index, etherType, payload, c);
        engine.dispatch(handlers, frame);
    }

    /** The receive thread's view of an RC frame: no GRH area, the header at the buffer's start. */
    private final class Frame implements ReceivedFrame {
        private int index;
        private int etherType;
        private int payloadLength;
        private CmLinkConnection from;

        void set(int index, int etherType, int payloadLength, CmLinkConnection from) {
            this.index = index;
            this.etherType = etherType;
            this.payloadLength = payloadLength;
            this.from = from;
        }

        @Override public int etherType() { return etherType; }
        @Override public MemorySegment buffer() { return buffers.receiveView(index); }
        @Override public long payloadOffset() { return EncapsulationHeader.LENGTH; }
        @Override public int payloadLength() { return payloadLength; }
        /** The peer's UD QPN (from its private data): the interface it is, as a UD frame would say. */
        @Override public int sourceQpn() { return from.peerUdQpn; }
        @Override public int sourceLid() { return from.peerLid; }
        @Override public boolean grhPresent() { return false; }
        @Override public Gid sourceGid() { return from.peerGid; }
        @Override public Gid destinationGid() { return gid; }
        @Override public boolean multicast() { return false; }
    }
}
