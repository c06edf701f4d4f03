package ipoib.console.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Other bundles' counters for {@code /metrics}: services of type {@code Supplier<Map<String, Long>>}
 * with a metric name prefix ({@value #PREFIX_PROPERTY}, e.g. {@code ipoib_fabric}) and optional
 * labels ({@value #LABELS_PROPERTY}, {@code name=value} strings, e.g. {@code interface=ib0_1_ffff}),
 * so that several sources (one per bridged device) share a prefix and differ by their labels.
 * A counter named {@code drop_<reason>} becomes {@code <prefix>_drops_total{reason="<reason>"}},
 * any other {@code <prefix>_<name>_total}.
 */
final class CounterSources {
    static final String PREFIX_PROPERTY = "ipoib.metrics.prefix";
    static final String LABELS_PROPERTY = "ipoib.metrics.labels";

    private record Source(String prefix, List<String> labels) {
        String key() {
            return prefix + "\u0000" + String.join("\u0000", labels);
        }
    }

    private final Map<Supplier<Map<String, Long>>, Source> sources = new ConcurrentHashMap<>();

    void add(Supplier<Map<String, Long>> source, Map<String, Object> properties) {
        List<String> labels = new ArrayList<>();
        Object l = properties.get(LABELS_PROPERTY);
        for (Object label : l instanceof String[] a ? a : l == null ? new Object[0] : new Object[] {l}) {
            String text = String.valueOf(label);
            int at = text.indexOf('=');
            if (at > 0) {
                labels.add(text.substring(0, at));
                labels.add(text.substring(at + 1));
            }
        }
        sources.put(source, new Source(String.valueOf(properties.get(PREFIX_PROPERTY)), List.copyOf(labels)));
    }

    void remove(Supplier<Map<String, Long>> source) {
        sources.remove(source);
    }

    /** Every source's counters, by prefix and labels. */
    void writeTo(Exposition e) {
        List<Map.Entry<Supplier<Map<String, Long>>, Source>> sorted = new ArrayList<>(sources.entrySet());
        sorted.sort(Comparator.comparing(s -> s.getValue().key()));
        for (Map.Entry<Supplier<Map<String, Long>>, Source> s : sorted) {
            String prefix = s.getValue().prefix();
            String[] labels = s.getValue().labels().toArray(String[]::new);
            Map<String, Long> counters;
            try {
                counters = new TreeMap<>(s.getKey().get());
            } catch (RuntimeException gone) {
                continue; // The source's bundle is stopping: its counters are left out of this scrape.
            }
            counters.forEach((k, v) -> {
                String name = Exposition.snake(k);
                if (name.startsWith("drop_")) {
                    String[] withReason = java.util.Arrays.copyOf(labels, labels.length + 2);
                    withReason[labels.length] = "reason";
                    withReason[labels.length + 1] = name.substring("drop_".length());
                    e.counter(prefix + "_drops_total", "Packets dropped by " + prefix + ", by reason.", v, withReason);
                } else {
                    e.counter(prefix + "_" + name + "_total", "Counter " + k + " of " + prefix + ".", v, labels);
                }
            });
        }
    }
}
