package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The baseline of the packet-rate benchmark: the least it costs to move a packet between two
 * threads. A bounded single-producer/single-consumer ring of preallocated slots; the producer
 * copies the packet into a slot, the consumer copies it out into its own buffer. A producer
 * that finds the ring full waits as the stack's sender waits for its window ({@link Deliveries}:
 * spins, then sleeps until half the ring is free), so that the two are compared under the same
 * waiting rule; the consumer never sleeps (idle, it yields its core after 5 us, as the link's
 * receive thread does before it parks).
 */
final class SpscRing implements AutoCloseable {
    private static final int SLOTS = LinkPair.WINDOW;
    private static final int SLOT_SIZE = 4096;

    private final MemorySegment slots = Arena.ofAuto().allocate((long) SLOTS * SLOT_SIZE, 64);
    private final int[] lengths = new int[SLOTS];
    private final MemorySegment sink = Arena.ofAuto().allocate(SLOT_SIZE);
    /** The consumer's position: packets taken out. */
    private final Deliveries head = new Deliveries();
    private final AtomicLong tail = new AtomicLong();
    private final Thread consumer;
    private volatile boolean running = true;

    SpscRing() {
        consumer = new Thread(this::consume, "spsc-consumer");
        consumer.setDaemon(true);
        consumer.start();
    }

    void offer(MemorySegment packet) {
        long t = tail.get();
        if (t - head.get() >= SLOTS) {
            head.awaitAtLeast(t - SLOTS + 1, t - SLOTS / 2);
        }
        int slot = (int) (t % SLOTS);
        int length = (int) packet.byteSize();
        MemorySegment.copy(packet, 0, slots, (long) slot * SLOT_SIZE, length);
        lengths[slot] = length;
        tail.lazySet(t + 1);
    }

    private void consume() {
        long idleSince = 0;
        while (running) {
            long h = head.get();
            if (h == tail.get()) {
                // Idle: spin, and past 5 us yield the core, as the link's receive thread does in
                // its wait (it parks after 50 us; this consumer never does).
                long now = System.nanoTime();
                if (idleSince == 0) {
                    idleSince = now;
                } else if (now - idleSince > Deliveries.BUSY_NANOS) {
                    Thread.yield();
                    continue;
                }
                Thread.onSpinWait();
                continue;
            }
            idleSince = 0;
            int slot = (int) (h % SLOTS);
            MemorySegment.copy(slots, (long) slot * SLOT_SIZE, sink, 0, lengths[slot]);
            head.increment();
        }
    }

    void drain() {
        while (head.get() < tail.get()) {
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            consumer.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
