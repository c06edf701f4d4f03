package ipoib.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The receiving side's count of delivered packets, which the sender reads to keep its window:
 * written by the receive thread only, read by the sender, alone on its cache lines. (An
 * {@code AtomicLong} allocated next to the sender's own counters shared their line: both cores
 * wrote it per packet.)
 *
 * <p>A sender whose window stays full waits as a blocking socket's writer does (Linux's
 * {@code sk_stream_wait_memory}): it spins a little, then sleeps until the receiver has taken
 * half the window. A sender that spins for as long as the window is full holds its core against
 * the very receive thread it waits for whenever the scheduler puts both on one core (2 cores
 * shared with other jobs): the receive thread then waits a whole time slice per window, the
 * scheduling floor of docs/PERFORMANCE.md ("Method").
 */
final class Deliveries {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle WAITER;

    static {
        try {
            WAITER = MethodHandles.lookup().findVarHandle(Deliveries.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** How long a sender spins on a full window before it sleeps. */
    static final long SPIN_NANOS = 20_000;
    /** How long of that it spins without yielding its core. */
    static final long BUSY_NANOS = 5_000;
    /** The longest sleep without a wake (a wake lost to the unfenced check below costs this much). */
    private static final long PARK_NANOS = 200_000;
    /** The count in the middle of 256 octets: no neighbour on its line whatever the alignment. */
    private static final int AT = 16;
    /** Beside the count: from how many delivered the sleeping sender wants to be woken. */
    private static final int WAKE_AT = AT + 1;
    private final long[] padded = new long[32];
    /** The sleeping sender, or null; written only when it sleeps, so read-mostly. */
    private volatile Thread waiter;
    /** Times the sender slept. */
    long sleeps;
    /** Whether the sending and the receiving thread pin themselves ({@link CpuAffinity}). */
    private final boolean pin;
    /** Whether the receive thread has pinned itself (that thread only). */
    private boolean receiverPinned;
    /** Whether the sending thread has pinned itself (that thread only). */
    private boolean senderPinned;

    /** @param pin whether the sender (its first {@link #get}) and the receiver (its first {@link #increment}) pin themselves */
    Deliveries(boolean pin) {
        this.pin = pin;
    }

    /** One more delivered (the receive thread only); wakes a sleeping sender once it has room. */
    void increment() {
        if (pin && !receiverPinned) {
            receiverPinned = true;
            CpuAffinity.pin(CpuAffinity.RECEIVER);
        }
        long n = (long) LONGS.getOpaque(padded, AT) + 1;
        LONGS.setRelease(padded, AT, n);
        Thread w = waiter;
        if (w != null && n >= (long) LONGS.getOpaque(padded, WAKE_AT) && WAITER.compareAndSet(this, w, null)) {
            LockSupport.unpark(w);
        }
    }

    /** Delivered so far (the sending thread). */
    long get() {
        if (pin && !senderPinned) {
            senderPinned = true;
            CpuAffinity.pin(CpuAffinity.SENDER);
        }
        return (long) LONGS.getAcquire(padded, AT);
    }

    /**
     * Waits until at least {@code needed} were delivered: spins {@link #SPIN_NANOS}, then sleeps
     * until {@code wakeAt} (at least {@code needed}) were delivered.
     *
     * @return the times the sender spun
     */
    long awaitAtLeast(long needed, long wakeAt) {
        long spins = 0;
        long spinUntil = 0;
        while (get() < needed) {
            spins++;
            if ((spins & 63) == 0) {
                long now = System.nanoTime();
                if (spinUntil == 0) {
                    spinUntil = now + SPIN_NANOS;
                } else if (now > spinUntil) {
                    sleep(needed, Math.max(needed, wakeAt));
                    continue;
                } else if (now > spinUntil - SPIN_NANOS + BUSY_NANOS) {
                    Thread.yield();
                    continue;
                }
            }
            Thread.onSpinWait();
        }
        return spins;
    }

    private void sleep(long needed, long wakeAt) {
        LONGS.setOpaque(padded, WAKE_AT, wakeAt);
        waiter = Thread.currentThread();
        VarHandle.fullFence();
        while (get() < needed && waiter != null) {
            LockSupport.parkNanos(this, PARK_NANOS);
        }
        waiter = null;
        sleeps++;
    }
}
