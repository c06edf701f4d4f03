package ipoib.bench;

import ipoib.runtime.SpinLock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The baseline of the packet-rate benchmark: the least it costs to move a packet between two
 * threads. A bounded single-producer/single-consumer ring of preallocated slots; the producer
 * copies the packet into a slot, the consumer copies it out into its own buffer. Both spin
 * while they wait (the producer on a full ring, the consumer on an empty one): the best case of
 * the work that cannot be avoided. (Waiting as the stack's sender and receive thread wait —
 * yielding, then sleeping — let the scheduler put both on one core even on a quiet machine:
 * 8.5 M instead of 45 M packets/s.) Producer and consumer are pinned to
 * CPUs 0 and 1 as the stack's sender and receive thread are ({@link CpuAffinity}).
 *
 * <p>For {@link LockedHandoffBenchmark} the producer can also take and release uncontended
 * {@link SpinLock}s per packet before it copies, as the link's single-frame path does: what a
 * locked instruction costs a handoff that otherwise has none.
 */
final class SpscRing implements AutoCloseable {
    private static final int SLOTS = LinkPair.WINDOW;
    private static final int SLOT_SIZE = 4096;

    private final MemorySegment slots = Arena.ofAuto().allocate((long) SLOTS * SLOT_SIZE, 64);
    private final int[] lengths = new int[SLOTS];
    private final MemorySegment sink = Arena.ofAuto().allocate(SLOT_SIZE);
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();
    private final Thread consumer;
    private volatile boolean running = true;
    /** Whether the producing thread has pinned itself (that thread only). */
    private boolean producerPinned;
    /** Lock words the producer takes per packet, each alone on its lines (only the producer touches them). */
    private final int[] locks;
    private final int lockCount;
    private static final int LOCK_STRIDE = 32;

    SpscRing() {
        this(0);
    }

    /** @param locksPerPacket uncontended locks the producer takes and releases per packet */
    SpscRing(int locksPerPacket) {
        lockCount = locksPerPacket;
        locks = new int[(locksPerPacket + 1) * LOCK_STRIDE];
        consumer = new Thread(this::consume, "spsc-consumer");
        consumer.setDaemon(true);
        consumer.start();
    }

    void offer(MemorySegment packet) {
        if (!producerPinned) {
            producerPinned = true;
            CpuAffinity.pin(CpuAffinity.SENDER);
        }
        long t = tail.get();
        while (t - head.get() >= SLOTS) {
            Thread.onSpinWait();
        }
        for (int i = 1; i <= lockCount; i++) {
            SpinLock.lock(locks, i * LOCK_STRIDE);
            SpinLock.unlock(locks, i * LOCK_STRIDE);
        }
        int slot = (int) (t % SLOTS);
        int length = (int) packet.byteSize();
        MemorySegment.copy(packet, 0, slots, (long) slot * SLOT_SIZE, length);
        lengths[slot] = length;
        tail.lazySet(t + 1);
    }

    private void consume() {
        CpuAffinity.pin(CpuAffinity.RECEIVER);
        while (running) {
            long h = head.get();
            if (h == tail.get()) {
                Thread.onSpinWait();
                continue;
            }
            int slot = (int) (h % SLOTS);
            MemorySegment.copy(slots, (long) slot * SLOT_SIZE, sink, 0, lengths[slot]);
            head.lazySet(h + 1);
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
