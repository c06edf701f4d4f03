package ipoib.verbs.loopback.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Draws a sending port's faults for each packet (loss, corruption, duplication, reordering) from
 * the port's seeded random, and holds delayed and reordered packets back, bounded, on the events
 * loop. Allocation-free unless a packet is held back.
 */
final class FaultInjector {
    /** Packets the delay and reorder faults may hold back at once. */
    static final int MAX_HELD_BACK = 4096;

    /** Faults drawn for one packet, as bits: lost, corrupted, duplicated, reordered. */
    static final int LOSE = 1;
    static final int CORRUPT = 2;
    static final int DUPLICATE = 4;
    static final int REORDER = 8;

    private final FabricCounters counters;
    private final FabricEvents events;
    private final AtomicInteger heldBack = new AtomicInteger();

    FaultInjector(FabricCounters counters, FabricEvents events) {
        this.counters = counters;
        this.events = events;
    }

    /** Draws the faults of one packet from the port's seeded random. */
    static int draw(Faults f, SplittableRandom random) {
        synchronized (random) {
            return (random.nextInt(100) < f.lossPercent() ? LOSE : 0)
                    | (random.nextInt(100) < f.corruptPercent() ? CORRUPT : 0)
                    | (random.nextInt(100) < f.duplicatePercent() ? DUPLICATE : 0)
                    | (random.nextInt(100) < f.reorderPercent() ? REORDER : 0);
        }
    }

    /** The packet's delay: the configured one, plus 1..4 ms when it is reordered. */
    static long delayNanos(Faults f, int drawn, SplittableRandom random) {
        long reorder = 0;
        if ((drawn & REORDER) != 0) {
            synchronized (random) {
                reorder = 1_000_000L + random.nextInt(4) * 1_000_000L;
            }
        }
        return f.delayMillis() * 1_000_000L + reorder;
    }

    /**
     * Whether the acknowledgement a port sends back is lost: its loss and corruption faults (a
     * corrupted ACK fails its CRC check just the same).
     */
    static boolean acknowledgementLost(LoopPort responder) {
        Faults back = responder.faults;
        if (!back.any() || (back.lossPercent() == 0 && back.corruptPercent() == 0)) {
            return false;
        }
        synchronized (responder.faultRandom) {
            return responder.faultRandom.nextInt(100) < back.lossPercent() + back.corruptPercent();
        }
    }

    /**
     * Holds copies of a packet back for {@code delay}: it must outlive the sender's buffer. The held
     * packets are bounded ({@value #MAX_HELD_BACK}); past that the packet is dropped and counted.
     */
    void holdBack(int copies, long delay, MemorySegment payload, long offset, int length,
                  Consumer<MemorySegment> deliver) {
        if (heldBack.get() + copies > MAX_HELD_BACK) {
            counters.drop(DropReason.FAULT_DELAY_QUEUE_FULL);
            return;
        }
        heldBack.addAndGet(copies);
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, length));
        MemorySegment.copy(payload, offset, copy, 0, length);
        counters.delayed();
        for (int i = 0; i < copies; i++) {
            events.schedule(() -> {
                heldBack.decrementAndGet();
                deliver.accept(copy);
            }, delay);
        }
    }
}
