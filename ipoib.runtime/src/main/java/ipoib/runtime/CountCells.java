package ipoib.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters with one writer at a time (a receive thread, whoever holds a lock, or one thread's
 * {@link ThreadCounters.Cells}), written with plain stores and read by anyone: no atomic
 * instruction per count, where a {@code LongAdder} takes a CAS per count. The counters sit
 * together between 128 octets of padding on either side, so that no other thread's data shares
 * their lines whatever the array's alignment.
 */
public class CountCells {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Padding on each side: two cache lines (an adjacent-line prefetcher pairs lines). */
    private static final int PAD = 16;
    private final long[] cells;

    public CountCells(int counters) {
        cells = new long[counters + 2 * PAD];
    }

    /** Counts one; the writer of the moment only. */
    public final void increment(int counter) {
        add(counter, 1);
    }

    /** Adds to a counter; the writer of the moment only. */
    public final void add(int counter, long value) {
        int at = PAD + counter;
        LONGS.setOpaque(cells, at, (long) LONGS.getOpaque(cells, at) + value);
    }

    public final long get(int counter) {
        return (long) LONGS.getOpaque(cells, PAD + counter);
    }
}
