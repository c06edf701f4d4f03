package ipoib.link.internal.cm;

import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.VerbsException;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkStatistics;
import ipoib.link.internal.capture.LinkCapture;
import ipoib.runtime.Clock;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.LongAdder;

/**
 * Connected mode's data path, on the senders' threads: a frame goes into a send buffer and onto
 * its connection's RC queue pair when the connection is UP, is held (up to
 * {@link CmLinkConnection#PENDING}) while it is CONNECTING, and goes back to UD otherwise.
 * Allocates nothing per frame; takes the table's lock only to hold a frame, so that the frames
 * held go out before any sent after the connection came up (see {@link CmActiveSide}). IPoIB
 * frames only: the CM agent sends its messages through {@link ipoib.cm.CmSender}.
 */
final class CmFrameSender {
    private final LinkEngine engine;
    private final LinkStatistics stats;
    private final Clock clock;
    private final CmBuffers buffers;
    private final CmConnectionTable table;
    private final LongAdder sentOverUd;

    CmFrameSender(LinkEngine engine, CmBuffers buffers, CmConnectionTable table, LongAdder sentOverUd) {
        this.engine = engine;
        this.stats = engine.stats;
        this.clock = engine.control().clock();
        this.buffers = buffers;
        this.table = table;
        this.sentOverUd = sentOverUd;
    }

    /** Sends over {@code c}: posted when UP, held when CONNECTING; null when the frame should go over UD. */
    TransmitResult send(CmLinkConnection c, int etherType, MemorySegment payload) {
        long length = payload.byteSize() + EncapsulationHeader.LENGTH;
        switch (c.state) {
            case UP -> {
                if (length > c.sendLimit) {
                    // ipoib_cm.c, ipoib_cm_send: a frame over the connection's MTU is dropped.
                    return stats.drop(TransmitResult.DROPPED_TOO_BIG);
                }
                return post(c, etherType, payload, (int) length);
            }
            case CONNECTING -> {
                return hold(c, etherType, payload, (int) length);
            }
            default -> {
                sentOverUd.increment();
                return null;
            }
        }
    }

    private TransmitResult post(CmLinkConnection c, int etherType, MemorySegment payload, int length) {
        int index = buffers.fill(etherType, payload);
        return index < 0 ? stats.drop(TransmitResult.DROPPED_NO_BUFFER) : postBuffer(c, index, length);
    }

    /** Posts a filled send buffer on the connection's queue pair (also for the frames held, by {@link CmActiveSide}). */
    TransmitResult postBuffer(CmLinkConnection c, int index, int length) {
        RcQueuePair qp = c.qp;
        // Before the post: the transport may deliver the frame before postSend returns, and a
        // reader that saw the frame arrive must see the connection used (the idle check).
        c.lastUsedNanos = clock.nanoTime();
        // Captured before posting, as UdSender does: a reply must not precede its request.
        LinkCapture capture = engine.captures().running();
        int slot = capture == null ? -1 : capture.claim();
        if (slot >= 0) {
            capture.fillSent(slot, c.peerUdQpn, c.peerGid, buffers.block(), CmBuffers.sendOffset(index), length);
            capture.commit(slot);
        }
        boolean posted;
        try {
            posted = qp != null && qp.postSend(CmReceiveThread.SEND_TAG | index, buffers.region,
                    CmBuffers.sendOffset(index), length);
        } catch (VerbsException e) {
            posted = false; // the queue pair went to ERROR: the frame is lost like a failed send
        }
        if (!posted) {
            buffers.release(index);
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        c.txPackets.increment();
        c.txBytes.add(length - EncapsulationHeader.LENGTH);
        stats.txPackets.increment();
        stats.txBytes.add(length - EncapsulationHeader.LENGTH);
        return TransmitResult.SENT;
    }

    private TransmitResult hold(CmLinkConnection c, int etherType, MemorySegment payload, int length) {
        if (length > ConnectedMode.RECEIVE_MTU) {
            return stats.drop(TransmitResult.DROPPED_TOO_BIG);
        }
        int index = buffers.fill(etherType, payload);
        if (index < 0) {
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        synchronized (table) {
            if (c.state == CmLinkConnection.State.CONNECTING && c.pendingCount < CmLinkConnection.PENDING) {
                c.pendingBuffer[c.pendingCount] = index;
                c.pendingLength[c.pendingCount++] = length;
                return TransmitResult.QUEUED;
            }
            if (c.state == CmLinkConnection.State.CONNECTING) {
                buffers.release(index);
                return stats.drop(TransmitResult.DROPPED_NO_BUFFER); // the hold is full
            }
            if (c.state != CmLinkConnection.State.UP) {
                buffers.release(index);
                return null; // rejected or closed meanwhile: UD takes it
            }
        }
        return postBuffer(c, index, length); // it came up meanwhile
    }
}
