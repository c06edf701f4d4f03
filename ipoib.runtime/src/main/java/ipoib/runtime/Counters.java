package ipoib.runtime;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Named counters, created once at set-up and then incremented without contention (each
 * {@link LongAdder} is striped per thread and summed on read). A data path that counts every
 * packet uses {@link ThreadCounters} instead, whose counters appear here in the order they were
 * created, like the others.
 */
public final class Counters {
    private final Map<String, LongAdder> adders = new LinkedHashMap<>();
    /** Every counter's sum, in the order of creation. */
    private final Map<String, LongSupplier> byName = new LinkedHashMap<>();

    /** The counter of a name, created on first use (hold on to it: the lookup is for set-up). */
    public synchronized LongAdder counter(String name) {
        LongAdder a = adders.get(name);
        if (a == null) {
            if (byName.containsKey(name)) {
                throw new IllegalStateException("counter " + name + " is counted per thread");
            }
            a = new LongAdder();
            adders.put(name, a);
            byName.put(name, a::sum);
        }
        return a;
    }

    /** Registers a counter whose value another object keeps (a {@link ThreadCounters} counter). */
    synchronized void register(String name, LongSupplier sum) {
        if (byName.putIfAbsent(name, sum) != null) {
            throw new IllegalStateException("counter " + name + " exists already");
        }
    }

    /** The current value of a counter, 0 when it was never created. */
    public synchronized long get(String name) {
        LongSupplier a = byName.get(name);
        return a == null ? 0 : a.getAsLong();
    }

    /** A snapshot in the order the counters were created. */
    public synchronized Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        byName.forEach((k, v) -> out.put(k, v.getAsLong()));
        return out;
    }

    /** The snapshot without the counters that are zero: what a user wants to see of drops. */
    public synchronized Map<String, Long> nonZero() {
        Map<String, Long> out = new LinkedHashMap<>();
        byName.forEach((k, v) -> {
            long s = v.getAsLong();
            if (s != 0) {
                out.put(k, s);
            }
        });
        return out;
    }
}
