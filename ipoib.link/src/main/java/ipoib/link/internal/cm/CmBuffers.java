package ipoib.link.internal.cm;

import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.link.internal.LinkResources;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The registered memory of one interface's connected mode: {@value #RECEIVE} receive buffers
 * posted to the shared receive queue every connection receives from (as Linux's ipoib_cm uses
 * an SRQ when the HCA has one), and {@value #SEND} send buffers shared by the connections, each
 * {@value #BUFFER} octets: a whole connected-mode frame (4-octet header and 65 520 octets).
 * Nothing is allocated per frame.
 */
final class CmBuffers {
    static final int BUFFER = 0x10000;
    static final int RECEIVE = 64;
    static final int SEND = 64;

    final SharedReceiveQueue srq;
    final MemoryRegion region;
    private final MemorySegment block;
    private final MemorySegment[] receiveViews = new MemorySegment[RECEIVE];
    // The free send buffers: a stack of indices guarded by itself.
    private final int[] free = new int[SEND];
    private int top;

    /**
     * @throws RuntimeException when the provider refuses the queue or the registration; nothing stays allocated
     */
    CmBuffers(Port port) {
        SharedReceiveQueue createdSrq = null;
        MemoryRegion createdRegion = null;
        try {
            createdSrq = port.createSharedReceiveQueue(RECEIVE);
            block = Arena.ofAuto().allocate((long) BUFFER * (RECEIVE + SEND), 64);
            createdRegion = port.device().registerMemory(block);
        } catch (RuntimeException e) {
            LinkResources.closeQuietly(createdSrq, createdRegion);
            throw e;
        }
        srq = createdSrq;
        region = createdRegion;
        for (int i = 0; i < RECEIVE; i++) {
            receiveViews[i] = block.asSlice(receiveOffset(i), BUFFER).asReadOnly();
            repost(i);
        }
        for (int i = 0; i < SEND; i++) {
            free[i] = i;
        }
        top = SEND;
    }

    static long receiveOffset(int index) {
        return (long) index * BUFFER;
    }

    static long sendOffset(int index) {
        return (long) (RECEIVE + index) * BUFFER;
    }

    /** What a frame handler sees of receive buffer {@code index}: read-only. */
    MemorySegment receiveView(int index) {
        return receiveViews[index];
    }

    /** The whole block, for reading headers and held frames. */
    MemorySegment block() {
        return block;
    }

    /** Posts receive buffer {@code index} to the shared receive queue again. */
    boolean repost(int index) {
        return srq.postReceive(index, region, receiveOffset(index), BUFFER);
    }

    /** A free send buffer with the header and the payload copied in; -1 when none is free. */
    int fill(int etherType, MemorySegment payload) {
        int index;
        synchronized (free) {
            if (top == 0) {
                return -1;
            }
            index = free[--top];
        }
        long at = sendOffset(index);
        EncapsulationHeader.write(block, at, etherType);
        MemorySegment.copy(payload, 0, block, at + EncapsulationHeader.LENGTH, payload.byteSize());
        return index;
    }

    /** Returns a send buffer: its send completed, failed, or it was never posted. */
    void release(int index) {
        synchronized (free) {
            free[top++] = index;
        }
    }

    /** Destroys the queue (its posted buffers flush) and the registration. */
    void close() {
        LinkResources.closeQuietly(srq, region);
    }
}
