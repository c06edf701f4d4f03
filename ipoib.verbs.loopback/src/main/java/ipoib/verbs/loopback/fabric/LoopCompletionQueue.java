package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.runtime.SpinLock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded completion ring without locks: many producers (the senders' threads, the loopback
 * delivers synchronously) and one consumer (the queue's poller). Producers claim a slot with a
 * CAS on the tail and publish it through the slot's sequence number (D. Vyukov's bounded queue),
 * so a sender and the poller never wait for each other; the poller parks only after announcing
 * it, and a producer unparks it only then.
 *
 * <p>Layout, so that a completion crosses cores as one line and nothing else does: each
 * completion is one slot of {@value #SLOT_LONGS} longs (128 octets) holding its sequence and its
 * fields packed, so that whatever the array's alignment the used first 40 octets of two slots
 * never share a 64-octet line (a completion spread over parallel arrays touched ten lines, and
 * 64-octet slots straddled lines shared with their neighbours). The producers' tail and the
 * consumer's head live in separate padded arrays; the queue object itself is only
 * read on the data path (its header is never locked), so the poller does not invalidate the line
 * the producers read {@link #waiter} from.
 *
 * <p>A queue whose only producer serialises itself ({@link #bindProducer} with its lock: a UD
 * queue pair's receive queue or its sends) claims with a plain store instead of the CAS, and
 * its poller announces that it parks under that lock. A CAS is a full fence: it waits until the
 * stores before it reach the other core, here the datagram just copied into the receiver's
 * buffer, so each one on a delivery costs a cache miss in line (measured: 20–25 ns of the
 * 140 ns a 64-octet frame cost the sending thread).
 */
final class LoopCompletionQueue implements CompletionQueue {
    /** How long {@link #await} spins before it parks. */
    private static final long SPIN_NANOS = 50_000;
    /** How long of that it spins without yielding the core. */
    private static final long BUSY_NANOS = 5_000;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final CompletionStatus[] STATUSES = CompletionStatus.values();
    private static final VarHandle WAITER;

    static {
        try {
            WAITER = MethodHandles.lookup().findVarHandle(LoopCompletionQueue.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** One slot: 16 longs = 128 octets, of which the first 5 are used. */
    static final int SLOT_LONGS = 16;
    /** Longs of a slot in use (the fields below). */
    static final int USED_LONGS = 5;
    /** Slot fields. */
    private static final int SEQUENCE = 0;
    private static final int WR_ID = 1;
    /** byte length (32) | opcode (8) | status (8) | GRH (1), high to low. */
    private static final int LENGTH_OPCODE_STATUS = 2;
    /** local QPN (32) | source QPN (32). */
    private static final int QPNS = 3;
    /** source LID (16) | SL (8) | P_Key index (16). */
    private static final int LID_SL_PKEY = 4;
    /** The padded counters: each in the middle of its own 256-octet array. */
    private static final int PADDED = 32;
    private static final int MIDDLE = 16;
    /** In {@link #tail}: the claims made, beside the tail (see {@link #claims()}). */
    private static final int CLAIMS = MIDDLE + 1;

    private final int mask;
    private final boolean singleThreaded;
    /** One poller at a time, unless the caller serialises them ({@link #singleThreaded}). */
    private final SpinLock pollLock = new SpinLock();
    private final long[] slots;
    /** The producers' claim position, alone on its lines. */
    private final long[] tail = new long[PADDED];
    /** The consumer's position, alone on its lines. */
    private final long[] consumer = new long[PADDED];
    private volatile Thread waiter;
    /** Guards {@link #producers} and the move of {@link #soleProducer} to null. */
    private final Object binding = new Object();
    private int producers;
    /**
     * The lock of the queue's only producer, under which it claims without a CAS; null with no
     * producer yet, with several, or with one that does not serialise itself.
     */
    private volatile ProducerLock soleProducer;
    private volatile boolean wakeup;
    private volatile boolean closed;

    LoopCompletionQueue(int capacity) {
        this(capacity, false);
    }

    /**
     * @param singleThreaded whether the caller serialises its polls ({@link
     *                       ipoib.api.verbs.Port#createCompletionQueue(int, boolean)}): then a poll
     *                       takes no lock, whose CAS would wait for the poller's last store to a
     *                       slot line, which the producers own
     */
    LoopCompletionQueue(int capacity, boolean singleThreaded) {
        this.singleThreaded = singleThreaded;
        if (capacity < 1 || capacity > 65536) {
            throw new VerbsException("completion queue capacity " + capacity + " is outside 1..65536");
        }
        int size = Integer.highestOneBit(capacity - 1 | 1) << 1;
        if (size / 2 >= capacity) {
            size /= 2;
        }
        mask = size - 1;
        // One spare slot in front: the array header's line is not a slot's.
        slots = new long[(size + 1) * SLOT_LONGS];
        for (int i = 0; i < size; i++) {
            slots[base(i)] = i;
        }
    }

    /**
     * Records a producer of this queue (a queue pair that completes into it).
     *
     * @param lock the lock it holds whenever it claims, puts and wakes; null when it claims
     *             without one (from several threads)
     */
    void bindProducer(ProducerLock lock) {
        synchronized (binding) {
            producers++;
            if (producers == 1 && lock != null) {
                soleProducer = lock;
                return;
            }
            ProducerLock sole = soleProducer;
            if (sole != null) {
                // The first producer may be claiming without a CAS right now: wait until it is
                // done, and from then on every claim takes the CAS.
                sole.lock();
                try {
                    soleProducer = null;
                } finally {
                    sole.unlock();
                }
            }
        }
    }

    /** Whether claims take no CAS (for tests). */
    boolean claimsWithoutCas() {
        return soleProducer != null;
    }

    private static int base(int slot) {
        return (slot + 1) * SLOT_LONGS;
    }

    @Override
    public int capacity() {
        return mask + 1;
    }

    /**
     * Whether a completion fits now (exact for a single producer, a hint with several). Reads the
     * slot the next completion goes into, not the consumer's position: no line the poller writes
     * per poll.
     */
    boolean hasRoom() {
        long position = (long) LONGS.getAcquire(tail, MIDDLE);
        return (long) LONGS.getAcquire(slots, base((int) (position & mask))) == position;
    }

    /**
     * Appends a completion.
     *
     * @return false when the queue is full or closed (the completion is lost, the caller counts it)
     */
    boolean push(long id, CompletionStatus st, int op, int length, int qpn, int srcQpn, int slid, int sl,
                 int pkeyIdx, boolean hasGrh) {
        long position = claim(1);
        if (position < 0) {
            return false;
        }
        put(position, id, st, op, length, qpn, srcQpn, slid, sl, pkeyIdx, hasGrh);
        wake();
        return true;
    }

    /**
     * Free slots now, at most {@code max}; 0 when closed. Exact for a single producer, a lower
     * bound with several ({@link #claim} checks again). Reads the consumer's position: once per
     * list, not per completion.
     */
    int room(int max) {
        if (closed || max <= 0) {
            return 0;
        }
        long position = (long) LONGS.getVolatile(tail, MIDDLE);
        long last = position + Math.min(max, mask + 1) - 1;
        if ((long) LONGS.getAcquire(slots, base((int) (last & mask))) == last) {
            return Math.min(max, mask + 1); // the usual case, without the poller's line
        }
        long used = position - (long) LONGS.getOpaque(consumer, MIDDLE);
        return (int) Math.max(0, Math.min(max, mask + 1 - used));
    }

    /**
     * Claims {@code count} consecutive slots with one CAS on the tail (a list's completions: one
     * claim instead of one per completion), when all of them are free.
     *
     * @param count 1..capacity
     * @return the position of the first slot, for {@link #put}; -1 when fewer are free, or closed
     */
    long claim(int count) {
        if (closed) {
            return -1;
        }
        long position = (long) LONGS.getVolatile(tail, MIDDLE);
        while (true) {
            // The poller frees slots in order, so the last one free means all before it are.
            long last = position + count - 1;
            long difference = (long) LONGS.getAcquire(slots, base((int) (last & mask))) - last;
            if (difference == 0) {
                if (soleProducer != null) {
                    // The only producer, under its lock (see bindProducer): nobody else moves the tail.
                    LONGS.setRelease(tail, MIDDLE, position + count);
                    tail[CLAIMS]++;
                    return position;
                }
                if (LONGS.compareAndSet(tail, MIDDLE, position, position + count)) {
                    tail[CLAIMS]++; // on the line the CAS just took; exact while one producer claims at a time
                    return position;
                }
            } else if (difference < 0) {
                return -1;
            }
            position = (long) LONGS.getVolatile(tail, MIDDLE);
        }
    }

    /**
     * Successful claims so far (a list's completions take one, a single completion one): how
     * tests see that a list was claimed as one. Counted without atomicity beside the tail, so
     * only a lower bound while producers claim concurrently.
     */
    long claims() {
        return (long) LONGS.getOpaque(tail, CLAIMS);
    }

    /**
     * Fills a claimed slot and publishes it; the poller sees it once the slots before it are
     * published too. {@link #wake} after the last of a claim.
     */
    void put(long position, long id, CompletionStatus st, int op, int length, int qpn, int srcQpn, int slid, int sl,
             int pkeyIdx, boolean hasGrh) {
        int at = base((int) (position & mask));
        slots[at + WR_ID] = id;
        slots[at + LENGTH_OPCODE_STATUS] = (long) length << 32 | (long) (op & 0xFF) << 24 | (long) st.ordinal() << 16
                | (hasGrh ? 1 : 0);
        slots[at + QPNS] = (long) qpn << 32 | (srcQpn & 0xFFFF_FFFFL);
        slots[at + LID_SL_PKEY] = (long) (slid & 0xFFFF) << 32 | (long) (sl & 0xFF) << 16 | (pkeyIdx & 0xFFFF);
        LONGS.setRelease(slots, at + SEQUENCE, position + 1);
    }

    /**
     * Wakes the poller if it announced that it parks: once per claim, however many completions
     * it held. One wake per park: the producer that takes the announcement wakes the poller, the
     * others see no waiter and go on.
     */
    void wake() {
        // With a sole producer, it and an announcing poller hold the same lock. Otherwise, no
        // fence here: the claim's CAS on the tail came first, and the poller, after announcing
        // itself, looks at the tail as well as the slot (claimedAfterAnnouncing). Either it sees
        // the claim and does not park, or this read sees it. (A fence here waited, per frame,
        // for the other core's cache line of the slot just written.)
        Thread parked = waiter;
        if (parked != null && WAITER.compareAndSet(this, parked, null)) {
            LockSupport.unpark(parked);
        }
    }

    private boolean ready() {
        long h = (long) LONGS.getOpaque(consumer, MIDDLE);
        return (long) LONGS.getAcquire(slots, base((int) (h & mask))) == h + 1;
    }

    /** {@link #ready()} with a volatile read, after announcing the waiter. */
    private boolean readyAfterAnnouncing() {
        long h = (long) LONGS.getOpaque(consumer, MIDDLE);
        return (long) LONGS.getVolatile(slots, base((int) (h & mask))) == h + 1;
    }

    /**
     * Whether a producer has claimed a slot the poller has not taken yet (published or about to
     * be), read after announcing the waiter: a volatile read of the tail, which the producers
     * move with a CAS before they read {@link #waiter} (see {@link #wake}).
     */
    private boolean claimedAfterAnnouncing() {
        return (long) LONGS.getVolatile(tail, MIDDLE) != (long) LONGS.getOpaque(consumer, MIDDLE);
    }

    /**
     * Moves up to a batch of completions. One consumer at a time (the owner polls, or reclaims
     * under its own lock): a second poller waits on a spin lock of its own, not on this
     * object's monitor (see the class comment); a single-threaded queue has no lock to take.
     */
    @Override
    public int poll(WorkCompletions into) {
        if (!singleThreaded) {
            pollLock.lock();
        }
        try {
            into.clear();
            long h = (long) LONGS.getOpaque(consumer, MIDDLE);
            int n = 0;
            while (into.hasRoom()) {
                int at = base((int) (h & mask));
                if ((long) LONGS.getAcquire(slots, at) != h + 1) {
                    break;
                }
                long los = slots[at + LENGTH_OPCODE_STATUS];
                long qpns = slots[at + QPNS];
                long lsp = slots[at + LID_SL_PKEY];
                into.add(slots[at + WR_ID], STATUSES[(int) (los >>> 16) & 0xFF], (int) (los >>> 24) & 0xFF,
                        (int) (los >>> 32), (int) (qpns >>> 32), (int) qpns, (int) (lsp >>> 32) & 0xFFFF,
                        (int) (lsp >>> 16) & 0xFF, (int) lsp & 0xFFFF, (los & 1) != 0);
                LONGS.setRelease(slots, at + SEQUENCE, h + mask + 1);
                h++;
                n++;
            }
            LONGS.setOpaque(consumer, MIDDLE, h);
            return n;
        } finally {
            if (!singleThreaded) {
                pollLock.unlock();
            }
        }
    }

    /**
     * Waits for a completion: first by spinning a few microseconds (a thread that parks and is
     * woken per packet spends more in the scheduler than in the packet), then yielding the core
     * to other OS threads, then parked.
     */
    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        long now = System.nanoTime();
        long spinUntil = now + Math.min(unit.toNanos(timeout), SPIN_NANOS);
        long yieldFrom = now + BUSY_NANOS;
        while (!ready() && !wakeup && !closed && (now = System.nanoTime()) < spinUntil) {
            if (now < yieldFrom) {
                Thread.onSpinWait();
            } else {
                // Past the first microseconds, give the core to any thread waiting for it: often
                // the very producer we wait for, woken onto this core (2 cores shared with other
                // jobs), which a busy spin would hold off for the rest of our time slice. On a
                // virtual thread too (CoreYield: Thread.yield there gives the core to no OS thread).
                CoreYield.yieldCore();
            }
        }
        try {
            while (!ready() && !wakeup && !closed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                if (announce()) {
                    break;
                }
                if (claimedAfterAnnouncing()) {
                    // Claimed but not yet published: its producer publishes in a moment and will
                    // not wake us (it may have read the waiter before we announced). Wait for it,
                    // yielding the core, which the producer may need to finish.
                    waiter = null;
                    while (!ready() && !closed && System.nanoTime() - deadline < 0) {
                        CoreYield.yieldCore();
                    }
                    continue;
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

    /**
     * Announces that the poller parks, then looks again: a producer that published before the
     * announcement is seen here, one after it unparks us. With a sole producer both happen under
     * its lock, since its claims take no CAS that would order them against the announcement.
     *
     * @return whether there is no need to park
     */
    private boolean announce() {
        ProducerLock sole = soleProducer;
        if (sole == null) {
            waiter = Thread.currentThread();
            return readyAfterAnnouncing() || wakeup || closed;
        }
        sole.lock();
        try {
            waiter = Thread.currentThread();
            return ready() || wakeup || closed;
        } finally {
            sole.unlock();
        }
    }

    /** Whether the poller has announced that it parks (for tests that wake it right then). */
    boolean pollerAnnounced() {
        return waiter != null;
    }

    /** {@link #await} spins, then parks with {@code LockSupport}: no native wait. */
    @Override
    public boolean awaitParks() {
        return true;
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
