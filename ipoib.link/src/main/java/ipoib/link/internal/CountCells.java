package ipoib.link.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters with one writer at a time (a receive thread, or whoever holds a lock), written with
 * plain stores and read by anyone: no atomic instruction per count, where a {@code LongAdder}
 * takes a CAS per count. The counters sit together between 128 octets of padding on either
 * side, so that no other thread's data shares their lines whatever the array's alignment.
 */
final class CountCells {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int PAD = 16;
    private final long[] cells;

    CountCells(int counters) {
        cells = new long[counters + 2 * PAD];
    }

    /** Adds to a counter; the writer of the moment only. */
    void add(int counter, long value) {
        int at = PAD + counter;
        LONGS.setOpaque(cells, at, (long) LONGS.getOpaque(cells, at) + value);
    }

    long get(int counter) {
        return (long) LONGS.getOpaque(cells, PAD + counter);
    }
}
