package ipoib.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The receiving side's count of delivered packets, which the sender reads to keep its window:
 * written by the receive thread only, read by the sender, alone on its cache lines. (An
 * {@code AtomicLong} allocated next to the sender's own counters shared their line: both cores
 * wrote it per packet.)
 */
final class Deliveries {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** The count in the middle of 256 octets: no neighbour on its line whatever the alignment. */
    private static final int AT = 16;
    private final long[] padded = new long[32];

    /** One more delivered (the receive thread only). */
    void increment() {
        LONGS.setRelease(padded, AT, (long) LONGS.getOpaque(padded, AT) + 1);
    }

    long get() {
        return (long) LONGS.getAcquire(padded, AT);
    }
}
