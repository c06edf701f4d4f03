package ipoib.api.verbs;

/**
 * A reusable list of receive work requests, posted with one
 * {@link UdQueuePair#postReceive(ReceiveWorkRequests)} as {@code ibv_post_recv} takes a linked
 * chain of {@code ibv_recv_wr}. Parallel arrays, so that filling and posting allocate nothing.
 * Not thread-safe: one poster owns a list.
 *
 * @since 1.2
 */
public final class ReceiveWorkRequests {
    private final long[] workRequestId;
    private final MemoryRegion[] region;
    private final long[] offset;
    private final int[] length;
    private int count;

    /**
     * @param capacity the most work requests the list holds, 1..65536
     */
    public ReceiveWorkRequests(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new IllegalArgumentException("invalid receive list capacity '" + capacity + "': allowed 1..65536");
        }
        workRequestId = new long[capacity];
        region = new MemoryRegion[capacity];
        offset = new long[capacity];
        length = new int[capacity];
    }

    public int capacity() {
        return workRequestId.length;
    }

    /** Work requests in the list. */
    public int count() {
        return count;
    }

    /** Whether another work request fits. */
    public boolean hasRoom() {
        return count < workRequestId.length;
    }

    /** Empties the list. */
    public void clear() {
        for (int i = 0; i < count; i++) {
            region[i] = null;
        }
        count = 0;
    }

    /**
     * Removes the first {@code n} work requests (those a post took), keeping the rest in order.
     *
     * @throws IllegalArgumentException when {@code n} is outside 0..count
     */
    public void removeFirst(int n) {
        if (n < 0 || n > count) {
            throw new IllegalArgumentException("cannot remove " + n + " of " + count + " receive work requests");
        }
        int rest = count - n;
        System.arraycopy(workRequestId, n, workRequestId, 0, rest);
        System.arraycopy(region, n, region, 0, rest);
        System.arraycopy(offset, n, offset, 0, rest);
        System.arraycopy(length, n, length, 0, rest);
        for (int i = rest; i < count; i++) {
            region[i] = null;
        }
        count = rest;
    }

    /**
     * Appends a work request; its arguments are those of
     * {@link UdQueuePair#postReceive(long, MemoryRegion, long, int)}.
     *
     * @throws IllegalStateException when the list is full
     */
    public void add(long wrId, MemoryRegion memory, long at, int octets) {
        if (!hasRoom()) {
            throw new IllegalStateException("receive work request list full (" + capacity() + ")");
        }
        int i = count++;
        workRequestId[i] = wrId;
        region[i] = memory;
        offset[i] = at;
        length[i] = octets;
    }

    public long workRequestId(int i) { return workRequestId[i]; }

    public MemoryRegion region(int i) { return region[i]; }

    public long offset(int i) { return offset[i]; }

    public int length(int i) { return length[i]; }
}
