package ipoib.neighbour;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * An open-addressing hash table of neighbours keyed by two {@code long}s, with lock-free,
 * allocation-free reads: the send path probes the published array; writers (control plane)
 * serialise on the map and publish a rebuilt array when it fills up. A reader on an old array
 * may find an entry that was removed meanwhile; entries carry a {@code removed} flag for that.
 */
final class NeighbourMap {
    private static final Object TOMBSTONE = new Object();
    private static final int MIN_CAPACITY = 16;

    private volatile AtomicReferenceArray<Object> table = new AtomicReferenceArray<>(MIN_CAPACITY);
    private int size;
    private int occupied;

    static int hash(long high, long low) {
        long h = high * 0x9E37_79B9_7F4A_7C15L + low;
        h ^= h >>> 33;
        h *= 0xFF51_AFD7_ED55_8CCDL;
        h ^= h >>> 33;
        return (int) h;
    }

    /** The neighbour of a key, or null. Lock-free; allocates nothing. */
    Neighbour get(long high, long low) {
        AtomicReferenceArray<Object> t = table;
        int mask = t.length() - 1;
        int i = hash(high, low) & mask;
        for (int n = 0; n <= mask; n++) {
            Object o = t.get(i);
            if (o == null) {
                return null;
            }
            if (o != TOMBSTONE) {
                Neighbour e = (Neighbour) o;
                if (e.high == high && e.low == low) {
                    return e;
                }
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    synchronized int size() {
        return size;
    }

    /** Inserts a neighbour whose key is not in the map (the caller checked under this lock). */
    synchronized void put(Neighbour e) {
        if ((occupied + 1) * 2 > table.length()) {
            rebuild(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, size + 1) * 4 - 1) << 1));
        }
        AtomicReferenceArray<Object> t = table;
        int mask = t.length() - 1;
        int i = hash(e.high, e.low) & mask;
        while (true) {
            Object o = t.get(i);
            if (o == null) {
                occupied++;
                break;
            }
            if (o == TOMBSTONE) {
                break;
            }
            i = (i + 1) & mask;
        }
        t.set(i, e);
        size++;
    }

    /** Replaces {@code old} by {@code replacement} (same key) in place. */
    synchronized void replace(Neighbour old, Neighbour replacement) {
        AtomicReferenceArray<Object> t = table;
        for (int i = 0; i < t.length(); i++) {
            if (t.get(i) == old) {
                t.set(i, replacement);
                return;
            }
        }
        put(replacement);
    }

    /** Removes exactly this neighbour; returns whether it was there. */
    synchronized boolean remove(Neighbour e) {
        AtomicReferenceArray<Object> t = table;
        int mask = t.length() - 1;
        int i = hash(e.high, e.low) & mask;
        for (int n = 0; n <= mask; n++) {
            Object o = t.get(i);
            if (o == null) {
                return false;
            }
            if (o == e) {
                t.set(i, TOMBSTONE);
                size--;
                if (size == 0) {
                    rebuild(MIN_CAPACITY);
                }
                return true;
            }
            i = (i + 1) & mask;
        }
        return false;
    }

    /** A snapshot of the neighbours. */
    synchronized List<Neighbour> values() {
        AtomicReferenceArray<Object> t = table;
        List<Neighbour> out = new ArrayList<>(size);
        for (int i = 0; i < t.length(); i++) {
            Object o = t.get(i);
            if (o != null && o != TOMBSTONE) {
                out.add((Neighbour) o);
            }
        }
        return out;
    }

    private void rebuild(int capacity) {
        AtomicReferenceArray<Object> old = table;
        AtomicReferenceArray<Object> t = new AtomicReferenceArray<>(capacity);
        int mask = capacity - 1;
        int count = 0;
        for (int k = 0; k < old.length(); k++) {
            Object o = old.get(k);
            if (o != null && o != TOMBSTONE) {
                Neighbour e = (Neighbour) o;
                int i = hash(e.high, e.low) & mask;
                while (t.get(i) != null) {
                    i = (i + 1) & mask;
                }
                t.set(i, e);
                count++;
            }
        }
        occupied = count;
        table = t;
    }
}
