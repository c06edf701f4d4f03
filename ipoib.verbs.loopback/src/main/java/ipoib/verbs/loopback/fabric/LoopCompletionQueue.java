package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded completion ring. Producers are the senders' threads (the loopback delivers
 * synchronously), the consumer is the queue's one poller. Each queue has its own lock, so
 * unrelated queue pairs never contend.
 */
final class LoopCompletionQueue implements CompletionQueue {
    /** How long {@link #await} spins before it blocks. */
    private static final long SPIN_NANOS = 50_000;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
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
    private int head;
    /** Written under the lock; read without it by a spinning {@link #await}. */
    private volatile int size;
    private int waiters;
    private boolean wakeup;
    private volatile boolean closed;

    LoopCompletionQueue(int capacity) {
        if (capacity < 1 || capacity > 65536) {
            throw new VerbsException("completion queue capacity " + capacity + " is outside 1..65536");
        }
        wrId = new long[capacity];
        status = new CompletionStatus[capacity];
        opcode = new int[capacity];
        byteLength = new int[capacity];
        localQpn = new int[capacity];
        sourceQpn = new int[capacity];
        sourceLid = new int[capacity];
        serviceLevel = new int[capacity];
        pkeyIndex = new int[capacity];
        grh = new boolean[capacity];
    }

    @Override
    public int capacity() {
        return wrId.length;
    }

    /** Reserves nothing; tells whether a completion fits now (callers hold no other CQ lock). */
    boolean hasRoom() {
        lock.lock();
        try {
            return size < wrId.length;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Appends a completion.
     *
     * @return false when the queue is full or closed (the completion is lost, the caller counts it)
     */
    boolean push(long id, CompletionStatus st, int op, int length, int qpn, int srcQpn, int slid, int sl,
                 int pkeyIdx, boolean hasGrh) {
        lock.lock();
        try {
            if (closed || size == wrId.length) {
                return false;
            }
            int i = head + size;
            if (i >= wrId.length) {
                i -= wrId.length;
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
            size++;
            // Only the first completion wakes the waiter: it drains everything that follows.
            if (size == 1 && waiters > 0) {
                notEmpty.signal();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int poll(WorkCompletions into) {
        into.clear();
        lock.lock();
        try {
            int n = 0;
            while (size > 0 && into.hasRoom()) {
                int i = head;
                into.add(wrId[i], status[i], opcode[i], byteLength[i], localQpn[i], sourceQpn[i], sourceLid[i],
                        serviceLevel[i], pkeyIndex[i], grh[i]);
                status[i] = null;
                head = i + 1 == wrId.length ? 0 : i + 1;
                size--;
                n++;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a completion: first by spinning a few microseconds (a thread that parks and is
     * woken per packet spends more in the scheduler than in the packet), then on the condition.
     */
    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        long spinUntil = System.nanoTime() + Math.min(nanos, SPIN_NANOS);
        while (size == 0 && !closed && System.nanoTime() < spinUntil) {
            Thread.onSpinWait();
        }
        if (size > 0) {
            return true;
        }
        lock.lock();
        try {
            waiters++;
            try {
                while (size == 0 && !wakeup && !closed) {
                    if (nanos <= 0) {
                        return false;
                    }
                    nanos = notEmpty.awaitNanos(nanos);
                }
                wakeup = false;
                return size > 0;
            } finally {
                waiters--;
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void wakeup() {
        lock.lock();
        try {
            wakeup = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    int size() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
