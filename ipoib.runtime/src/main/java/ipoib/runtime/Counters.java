package ipoib.runtime;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Named counters, created once at set-up and then incremented without contention (each
 * {@link LongAdder} is striped per thread and summed on read).
 */
public final class Counters {
    private final Map<String, LongAdder> byName = new LinkedHashMap<>();

    /** The counter of a name, created on first use (hold on to it: the lookup is for set-up). */
    public synchronized LongAdder counter(String name) {
        return byName.computeIfAbsent(name, n -> new LongAdder());
    }

    /** The current value of a counter, 0 when it was never created. */
    public synchronized long get(String name) {
        LongAdder a = byName.get(name);
        return a == null ? 0 : a.sum();
    }

    /** A snapshot in the order the counters were created. */
    public synchronized Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        byName.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** The snapshot without the counters that are zero: what a user wants to see of drops. */
    public synchronized Map<String, Long> nonZero() {
        Map<String, Long> out = new LinkedHashMap<>();
        byName.forEach((k, v) -> {
            long s = v.sum();
            if (s != 0) {
                out.put(k, s);
            }
        });
        return out;
    }
}
