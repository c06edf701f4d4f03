package ipoib.verbs.fabric.internal;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The outstanding work requests of one work queue (an RC send or receive queue, a shared receive
 * queue): the {@code wr_id} handed to the driver is a slot number and the caller's work-request
 * id is kept here. A full queue refuses before the driver is called; a completion gives its slot
 * back once (a made-up flush and a racing poll cannot both complete it); post order is kept for
 * flushes. Not thread-safe: the owner guards it with its lock. Allocation-free except
 * {@link #drainInPostOrder}.
 */
final class WorkSlots {
    private final long[] ids;
    private final long[] seq;
    private final boolean[] outstanding;
    private final int[] free;
    private int freeCount;
    private long posted;

    WorkSlots(int depth) {
        ids = new long[depth];
        seq = new long[depth];
        outstanding = new boolean[depth];
        free = new int[depth];
        for (int i = 0; i < depth; i++) {
            free[i] = depth - 1 - i;
        }
        freeCount = depth;
    }

    int capacity() {
        return ids.length;
    }

    int outstanding() {
        return ids.length - freeCount;
    }

    /** A slot for a new work request, or -1 when the queue is full. */
    int take(long workRequestId) {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[--freeCount];
        ids[slot] = workRequestId;
        seq[slot] = ++posted;
        outstanding[slot] = true;
        return slot;
    }

    /**
     * Gives a completed slot back.
     *
     * @return false when the slot was not outstanding (already flushed, or not a slot of this queue)
     */
    boolean release(int slot) {
        if (slot < 0 || slot >= outstanding.length || !outstanding[slot]) {
            return false;
        }
        outstanding[slot] = false;
        free[freeCount++] = slot;
        return true;
    }

    /** The work-request id a slot holds (valid until it is taken again). */
    long id(int slot) {
        return ids[slot];
    }

    /** Gives every outstanding slot back: their work-request ids in post order, for made-up flushes. */
    long[] drainInPostOrder() {
        Integer[] slots = new Integer[outstanding()];
        int n = 0;
        for (int slot = 0; slot < ids.length; slot++) {
            if (outstanding[slot]) {
                slots[n++] = slot;
            }
        }
        Arrays.sort(slots, 0, n, Comparator.comparingLong(i -> seq[i]));
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = ids[slots[i]];
            release(slots[i]);
        }
        return out;
    }
}
