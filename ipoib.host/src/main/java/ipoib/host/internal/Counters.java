package ipoib.host.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Named counters, created once and incremented without contention. */
final class Counters {
    private final Map<String, LongAdder> ordered = new LinkedHashMap<>();

    synchronized LongAdder counter(String name) {
        return ordered.computeIfAbsent(name, k -> new LongAdder());
    }

    synchronized Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        ordered.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
