package ipoib.runtime;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Named counters of a component that serves several interfaces (a resolver, the host layer),
 * each counted in total (in the {@link Counters} given, which the shell shows) and per interface
 * (for the {@code interface} label of {@code /metrics}). Counting looks the interface up in a
 * concurrent map: no allocation once the interface has counted.
 */
public final class InterfaceCounters {
    private static final Function<String, LongAdder> NEW = name -> new LongAdder();
    private final Counters total;
    private final List<Counter> counters = new ArrayList<>();

    /** Counters whose totals are {@code total}'s. */
    public InterfaceCounters(Counters total) {
        this.total = total;
    }

    /** One counter, in total and per interface. */
    public static final class Counter {
        private final String name;
        private final LongAdder total;
        private final ConcurrentHashMap<String, LongAdder> byInterface = new ConcurrentHashMap<>();

        private Counter(String name, LongAdder total) {
            this.name = name;
            this.total = total;
        }

        /** Counts one for {@code interfaceName} (null: an event of no interface, counted in the total only). */
        public void increment(String interfaceName) {
            add(interfaceName, 1);
        }

        /** Adds {@code n} for {@code interfaceName} (null: in the total only). */
        public void add(String interfaceName, long n) {
            total.add(n);
            if (interfaceName != null) {
                byInterface.computeIfAbsent(interfaceName, NEW).add(n);
            }
        }

        /** The total. */
        public long sum() {
            return total.sum();
        }
    }

    /** The totals, as the shell shows them. */
    public Counters total() {
        return total;
    }

    /** The counter of a name, created on first use (set-up: hold on to it). */
    public synchronized Counter counter(String name) {
        for (Counter c : counters) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        Counter c = new Counter(name, total.counter(name));
        counters.add(c);
        return c;
    }

    /** Whether {@code name} is one of these counters. */
    public synchronized boolean has(String name) {
        return counters.stream().anyMatch(c -> c.name.equals(name));
    }

    /**
     * Every interface that counted, by name, with every counter (zero where it counted nothing),
     * in the order the counters were created.
     */
    public synchronized Map<String, Map<String, Long>> byInterface() {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        for (Counter c : counters) {
            for (String name : c.byInterface.keySet()) {
                out.computeIfAbsent(name, k -> new LinkedHashMap<>());
            }
        }
        for (Map.Entry<String, Map<String, Long>> e : out.entrySet()) {
            for (Counter c : counters) {
                LongAdder a = c.byInterface.get(e.getKey());
                e.getValue().put(c.name, a == null ? 0 : a.sum());
            }
        }
        return out;
    }
}
