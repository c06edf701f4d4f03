package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded completion ring without locks: many producers (the senders' threads, the loopback
 * delivers synchronously) and one consumer (the queue's poller). Producers claim a slot with a
 * CAS on the tail and publish it through the slot's sequence number (D. Vyukov's bounded queue),
 * so a sender and the poller never wait for each other; the poller parks only after announcing
 * it, and a producer unparks it only then.
 */
final class LoopCompletionQueue implements CompletionQueue {
    /** How long {@link #await} spins before it parks. */
    private static final long SPIN_NANOS = 50_000;
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);

    private final int mask;
    /** Per slot: equal to the position when free for it, position + 1 when filled. */
    private final long[] sequence;
    private final long[] wrId;
    private final CompletionStatus[] status;
    private final int[] opcode;
    private final int[] byteLength;
    private final int[] localQpn;
    private final int[] sourceQpn;
    private final int[] sourceLid;
    private final int[] serviceLevel;
    private final int[] pkeyIndex;
    private final boolean[] grh;
    private final AtomicLong tail = new AtomicLong();
    /** The consumer's position; volatile so that producers can tell how full the ring is. */
    private volatile long head;
    private volatile Thread waiter;
    private volatile boolean wakeup;
    private volatile boolean closed;

    LoopCompletionQueue(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new VerbsException("completion queue capacity " + capacity + " is outside 1..65536");
        }
        int size = Integer.highestOneBit(capacity - 1 | 1) << 1;
        if (size / 2 >= capacity) {
            size /= 2;
        }
        mask = size - 1;
        sequence = new long[size];
        for (int i = 0; i < size; i++) {
            sequence[i] = i;
        }
        wrId = new long[size];
        status = new CompletionStatus[size];
        opcode = new int[size];
        byteLength = new int[size];
        localQpn = new int[size];
        sourceQpn = new int[size];
        sourceLid = new int[size];
        serviceLevel = new int[size];
        pkeyIndex = new int[size];
        grh = new boolean[size];
    }

    @Override
    public int capacity() {
        return mask + 1;
    }

    /** Whether a completion fits now (exact for a single producer, a hint with several). */
    boolean hasRoom() {
        return tail.get() - head <= mask;
    }

    /**
     * Appends a completion.
     *
     * @return false when the queue is full or closed (the completion is lost, the caller counts it)
     */
    boolean push(long id, CompletionStatus st, int op, int length, int qpn, int srcQpn, int slid, int sl,
                 int pkeyIdx, boolean hasGrh) {
        if (closed) {
            return false;
        }
        long position = tail.get();
        int i;
        while (true) {
            i = (int) (position & mask);
            long difference = (long) SEQUENCE.getAcquire(sequence, i) - position;
            if (difference == 0) {
                if (tail.compareAndSet(position, position + 1)) {
                    break;
                }
                position = tail.get();
            } else if (difference < 0) {
                return false;
            } else {
                position = tail.get();
            }
        }
        wrId[i] = id;
        status[i] = st;
        opcode[i] = op;
        byteLength[i] = length;
        localQpn[i] = qpn;
        sourceQpn[i] = srcQpn;
        sourceLid[i] = slid;
        serviceLevel[i] = sl;
        pkeyIndex[i] = pkeyIdx;
        grh[i] = hasGrh;
        // A volatile store, so that reading the waiter below cannot move before it.
        SEQUENCE.setVolatile(sequence, i, position + 1);
        Thread parked = waiter;
        if (parked != null) {
            LockSupport.unpark(parked);
        }
        return true;
    }

    private boolean ready() {
        long h = head;
        return (long) SEQUENCE.getAcquire(sequence, (int) (h & mask)) == h + 1;
    }

    /**
     * {@link #ready()} with a volatile read: after announcing the waiter (a volatile store) the
     * re-check must not be reordered before it, or a producer and the poller could each miss the
     * other (the producer's side is a volatile store of the sequence, then a read of the waiter).
     */
    private boolean readyAfterAnnouncing() {
        long h = head;
        return (long) SEQUENCE.getVolatile(sequence, (int) (h & mask)) == h + 1;
    }

    /** Moves up to a batch of completions; one consumer at a time (the owner polls, or reclaims under its own lock). */
    @Override
    public synchronized int poll(WorkCompletions into) {
        into.clear();
        long h = head;
        int n = 0;
        while (into.hasRoom()) {
            int i = (int) (h & mask);
            if ((long) SEQUENCE.getAcquire(sequence, i) != h + 1) {
                break;
            }
            into.add(wrId[i], status[i], opcode[i], byteLength[i], localQpn[i], sourceQpn[i], sourceLid[i],
                    serviceLevel[i], pkeyIndex[i], grh[i]);
            status[i] = null;
            SEQUENCE.setRelease(sequence, i, h + mask + 1);
            h++;
            n++;
        }
        head = h;
        return n;
    }

    /**
     * Waits for a completion: first by spinning a few microseconds (a thread that parks and is
     * woken per packet spends more in the scheduler than in the packet), then parked.
     */
    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        long spinUntil = System.nanoTime() + Math.min(unit.toNanos(timeout), SPIN_NANOS);
        while (!ready() && !wakeup && !closed && System.nanoTime() < spinUntil) {
            Thread.onSpinWait();
        }
        try {
            while (!ready() && !wakeup && !closed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                waiter = Thread.currentThread();
                // Announce, then look again: a producer that published before the announcement
                // is seen here, one after it unparks us.
                if (readyAfterAnnouncing() || wakeup || closed) {
                    break;
                }
                LockSupport.parkNanos(this, remaining);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            waiter = null;
        }
        wakeup = false;
        return ready();
    }

    @Override
    public void wakeup() {
        wakeup = true;
        Thread parked = waiter;
        if (parked != null) {
            LockSupport.unpark(parked);
        }
    }

    @Override
    public void close() {
        closed = true;
        wakeup();
    }
}
