package ipoib.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * Counters of a data path that each thread increments in cells of its own ({@link CountCells}):
 * a plain store, no atomic instruction (a {@link java.util.concurrent.atomic.LongAdder} takes a
 * locked compare-and-set per increment even when no other thread counts, which drains the store
 * buffer: measured a fifth of the host layer's send path), no cache line another thread writes. A read
 * sums every thread's cells; the cells of a thread that ended are folded into a base and let go
 * (on the next read, and when another thread starts counting).
 *
 * <p>Set-up: {@link #counter} names each counter, in {@link Counters}' order, before the first
 * {@link #cells()}. Data path: {@code cells()} (a thread-local look-up; a loop may keep the
 * result, on its own thread only, or check {@link Cells#belongsTo}) and {@link Cells#increment}.
 */
public final class ThreadCounters {

    private final Counters into;
    private final List<String> names = new ArrayList<>();
    /** Not a ThreadLocal: threads of other bundles count here and must not keep this bundle's classes. */
    private final PerThread<Cells> local = new PerThread<>(this::register);
    /** The cells of the threads that count (guarded by this). */
    private final List<Cells> live = new ArrayList<>();
    /** What the threads that ended counted (guarded by this). */
    private long[] retired = new long[0];
    private boolean started;

    /** One thread's cells; only that thread increments them. */
    public static final class Cells extends CountCells {
        private final Thread owner = Thread.currentThread();

        private Cells(int count) {
            super(count);
        }

        /** Whether these are {@code thread}'s (a caller that keeps cells checks before it counts). */
        public boolean belongsTo(Thread thread) {
            return owner == thread;
        }
    }

    /** Counters that appear among {@code into}'s. */
    public ThreadCounters(Counters into) {
        this.into = into;
    }

    /**
     * A new counter (set-up only); its value appears in {@code into} under {@code name}.
     *
     * @return its index for {@link Cells#increment}
     * @throws IllegalStateException after the first {@link #cells()}, or for a name that exists
     */
    public int counter(String name) {
        int index;
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("counter " + name + " created after counting began");
            }
            index = names.size();
            names.add(name);
        }
        // Outside this lock: a read of Counters holds its lock and then takes this one.
        into.register(name, () -> sum(index));
        return index;
    }

    /** The calling thread's cells. */
    public Cells cells() {
        return local.get();
    }

    private synchronized Cells register() {
        started = true;
        retireEnded();
        Cells c = new Cells(names.size());
        live.add(c);
        return c;
    }

    /** The sum of one counter over every thread. */
    public synchronized long sum(int counter) {
        retireEnded();
        long sum = counter < retired.length ? retired[counter] : 0;
        for (Cells c : live) {
            sum += c.get(counter);
        }
        return sum;
    }

    /** Folds the cells of threads that ended (they count no more: their last writes are visible once isAlive is false). */
    private void retireEnded() {
        for (int k = live.size() - 1; k >= 0; k--) {
            Cells c = live.get(k);
            if (!c.owner.isAlive()) {
                if (retired.length < names.size()) {
                    retired = java.util.Arrays.copyOf(retired, names.size());
                }
                for (int i = 0; i < names.size(); i++) {
                    retired[i] += c.get(i);
                }
                live.remove(k);
            }
        }
    }
}
