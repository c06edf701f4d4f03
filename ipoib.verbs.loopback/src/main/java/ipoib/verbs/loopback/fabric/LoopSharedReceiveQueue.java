package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.VerbsException;

/**
 * Receive buffers of RC queue pairs: a bounded ring consumed in posting order, shared by several
 * queue pairs (a shared receive queue) or private to one (its own receive queue).
 */
final class LoopSharedReceiveQueue implements SharedReceiveQueue {
    private final LoopDevice device;
    private final long[] wrId;
    private final LoopMemoryRegion[] region;
    private final long[] offset;
    private final int[] length;
    private int head;
    private int size;
    private boolean closed;

    /** A claimed buffer, owned by one queue pair and reused for each message (no allocation per message). */
    static final class Buffer {
        long wrId;
        LoopMemoryRegion region;
        long offset;
        int length;
    }

    LoopSharedReceiveQueue(LoopDevice device, int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new VerbsException("receive queue capacity " + capacity + " is outside 1..65536");
        }
        this.device = device;
        wrId = new long[capacity];
        region = new LoopMemoryRegion[capacity];
        offset = new long[capacity];
        length = new int[capacity];
    }

    @Override
    public int capacity() {
        return wrId.length;
    }

    @Override
    public boolean postReceive(long workRequestId, MemoryRegion memory, long bufferOffset, int bufferLength) {
        if (!(memory instanceof LoopMemoryRegion r)) {
            throw new VerbsException("postReceive: memory region is not from the loopback provider");
        }
        r.check(device, bufferOffset, bufferLength, "postReceive");
        synchronized (this) {
            if (closed) {
                throw new VerbsException("postReceive: the receive queue is closed");
            }
            if (size == wrId.length) {
                return false;
            }
            int i = (head + size) % wrId.length;
            wrId[i] = workRequestId;
            region[i] = r;
            offset[i] = bufferOffset;
            length[i] = bufferLength;
            size++;
            return true;
        }
    }

    /** Moves the oldest posted buffer into {@code into}; false when none is posted (the sender gets an RNR NAK). */
    synchronized boolean take(Buffer into) {
        if (size == 0 || closed) {
            return false;
        }
        int i = head;
        head = (head + 1) % wrId.length;
        size--;
        into.wrId = wrId[i];
        into.region = region[i];
        into.offset = offset[i];
        into.length = length[i];
        region[i] = null;
        return true;
    }

    /**
     * Moves the oldest posted buffer into {@code into} when one is posted and holds at least
     * {@code length} octets; otherwise takes nothing and returns false.
     */
    synchronized boolean takeAtLeast(Buffer into, int length) {
        return size > 0 && this.length[head] >= length && take(into);
    }

    /** Empties the queue for a flush: each buffer's work request ID in posting order. */
    synchronized long[] drain() {
        long[] ids = new long[size];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = wrId[(head + k) % wrId.length];
            region[(head + k) % wrId.length] = null;
        }
        size = 0;
        return ids;
    }

    @Override
    public synchronized void close() {
        closed = true;
    }
}
