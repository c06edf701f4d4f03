package ipoib.neighbour;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Named counters, created once and incremented without contention. */
public final class Counters {
    private final Map<String, LongAdder> byName = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> ordered = new LinkedHashMap<>();

    /** The counter of a name, created on first use (hold on to it: the lookup is for set-up). */
    public synchronized LongAdder counter(String name) {
        LongAdder a = byName.get(name);
        if (a == null) {
            a = new LongAdder();
            byName.put(name, a);
            ordered.put(name, a);
        }
        return a;
    }

    /** A snapshot in the order the counters were created. */
    public synchronized Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        ordered.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
