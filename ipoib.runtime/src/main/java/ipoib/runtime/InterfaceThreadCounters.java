package ipoib.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Data-path counters kept per interface: a {@link ThreadCounters} per interface (plain stores in
 * each thread's own cells, no atomic instruction), whose sums over every interface appear among
 * the totals' {@link Counters}. A thread keeps a {@link Local}, which remembers the cells of the
 * interface it counted last (a receive thread serves one interface): no look-up while the
 * interface stays the same, no allocation once a thread has counted for an interface.
 *
 * <p>Set-up: {@link #counter} names each counter before the first count.
 */
public final class InterfaceThreadCounters {
    private final Counters totals;
    private final List<String> names = new ArrayList<>();
    private final ConcurrentHashMap<String, ThreadCounters> byInterface = new ConcurrentHashMap<>();
    /** Events of no interface: in the totals only. */
    private ThreadCounters none;

    /** Counters whose sums appear among {@code totals}'. */
    public InterfaceThreadCounters(Counters totals) {
        this.totals = totals;
    }

    /**
     * A new counter (set-up only); its sum over the interfaces appears in the totals under {@code name}.
     *
     * @return its index for {@link ThreadCounters.Cells#increment}
     * @throws IllegalStateException after the first count, or for a name that exists
     */
    public int counter(String name) {
        int index;
        synchronized (this) {
            if (none != null) {
                throw new IllegalStateException("counter " + name + " created after counting began");
            }
            if (names.contains(name)) {
                throw new IllegalStateException("counter " + name + " exists already");
            }
            index = names.size();
            names.add(name);
        }
        totals.register(name, () -> sum(index));
        return index;
    }

    /** A thread's view: the cells of the interface it counts for (one per thread; not shared). */
    public final class Local {
        private String lastInterface;
        private ThreadCounters.Cells lastCells;

        /** The calling thread's cells for {@code interfaceName} (null: an event of no interface). */
        public ThreadCounters.Cells of(String interfaceName) {
            ThreadCounters.Cells c = lastCells;
            if (c == null || interfaceName == null || !interfaceName.equals(lastInterface)) {
                c = counters(interfaceName).cells();
                lastCells = c;
                lastInterface = interfaceName;
            }
            return c;
        }
    }

    /** A new {@link Local} for the calling thread. */
    public Local local() {
        return new Local();
    }

    private ThreadCounters counters(String interfaceName) {
        if (interfaceName == null) {
            synchronized (this) {
                if (none == null) {
                    none = create();
                }
                return none;
            }
        }
        ThreadCounters t = byInterface.get(interfaceName);
        return t != null ? t : byInterface.computeIfAbsent(interfaceName, k -> {
            synchronized (this) {
                if (none == null) {
                    none = create();
                }
            }
            return create();
        });
    }

    private synchronized ThreadCounters create() {
        ThreadCounters t = new ThreadCounters(new Counters());
        for (String name : names) {
            t.counter(name);
        }
        return t;
    }

    private long sum(int index) {
        ThreadCounters n;
        synchronized (this) {
            n = none;
        }
        long sum = n == null ? 0 : n.sum(index);
        for (ThreadCounters t : byInterface.values()) {
            sum += t.sum(index);
        }
        return sum;
    }

    /** Whether {@code name} is one of these counters. */
    public synchronized boolean has(String name) {
        return names.contains(name);
    }

    /** Every interface that counted, by name, with every counter in the order of creation. */
    public Map<String, Map<String, Long>> byInterface() {
        List<String> counterNames;
        synchronized (this) {
            counterNames = List.copyOf(names);
        }
        Map<String, Map<String, Long>> out = new TreeMap<>();
        byInterface.forEach((name, t) -> {
            Map<String, Long> values = new LinkedHashMap<>();
            for (int i = 0; i < counterNames.size(); i++) {
                values.put(counterNames.get(i), t.sum(i));
            }
            out.put(name, values);
        });
        return out;
    }
}
