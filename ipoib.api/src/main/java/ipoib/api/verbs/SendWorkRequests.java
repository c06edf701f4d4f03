package ipoib.api.verbs;

import ipoib.api.QKey;
import ipoib.api.Qpn;

/**
 * A reusable list of UD send work requests, posted with one {@link UdQueuePair#postSend(SendWorkRequests)}
 * as {@code ibv_post_send} takes a linked chain of {@code ibv_send_wr}: the caller fills it, posts
 * it, and clears it for the next burst. Parallel arrays, so that filling and posting allocate
 * nothing. Not thread-safe: one sender owns a list.
 *
 * @since 1.2
 */
public final class SendWorkRequests {
    private final long[] workRequestId;
    private final MemoryRegion[] region;
    private final long[] offset;
    private final int[] length;
    private final AddressHandle[] destination;
    private final Qpn[] remoteQpn;
    private final QKey[] remoteQkey;
    private int count;

    /**
     * @param capacity the most work requests the list holds, 1..65536
     */
    public SendWorkRequests(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new IllegalArgumentException("invalid send list capacity '" + capacity + "': allowed 1..65536");
        }
        workRequestId = new long[capacity];
        region = new MemoryRegion[capacity];
        offset = new long[capacity];
        length = new int[capacity];
        destination = new AddressHandle[capacity];
        remoteQpn = new Qpn[capacity];
        remoteQkey = new QKey[capacity];
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

    /** Empties the list (and lets go of the regions and handles it referred to). */
    public void clear() {
        for (int i = 0; i < count; i++) {
            region[i] = null;
            destination[i] = null;
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
            throw new IllegalArgumentException("cannot remove " + n + " of " + count + " send work requests");
        }
        int rest = count - n;
        System.arraycopy(workRequestId, n, workRequestId, 0, rest);
        System.arraycopy(region, n, region, 0, rest);
        System.arraycopy(offset, n, offset, 0, rest);
        System.arraycopy(length, n, length, 0, rest);
        System.arraycopy(destination, n, destination, 0, rest);
        System.arraycopy(remoteQpn, n, remoteQpn, 0, rest);
        System.arraycopy(remoteQkey, n, remoteQkey, 0, rest);
        for (int i = rest; i < count; i++) {
            region[i] = null;
            destination[i] = null;
        }
        count = rest;
    }

    /**
     * Appends a work request; its arguments are those of
     * {@link UdQueuePair#postSend(long, MemoryRegion, long, int, AddressHandle, Qpn, QKey)}.
     *
     * @throws IllegalStateException when the list is full
     */
    public void add(long wrId, MemoryRegion memory, long at, int octets, AddressHandle to, Qpn qpn, QKey qkey) {
        if (!hasRoom()) {
            throw new IllegalStateException("send work request list full (" + capacity() + ")");
        }
        int i = count++;
        workRequestId[i] = wrId;
        region[i] = memory;
        offset[i] = at;
        length[i] = octets;
        destination[i] = to;
        remoteQpn[i] = qpn;
        remoteQkey[i] = qkey;
    }

    public long workRequestId(int i) { return workRequestId[i]; }

    public MemoryRegion region(int i) { return region[i]; }

    public long offset(int i) { return offset[i]; }

    public int length(int i) { return length[i]; }

    public AddressHandle destination(int i) { return destination[i]; }

    public Qpn remoteQpn(int i) { return remoteQpn[i]; }

    public QKey remoteQkey(int i) { return remoteQkey[i]; }
}
