package ipoib.runtime;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A component's named counters as metric families: each counter that counts something dropped
 * is a {@code reason} of one {@code <prefix>_drops_total} family, every other one its own
 * {@code <prefix>_<name>_total} family with the help text the component gives it (a counter it
 * gives none, newer than its table, gets a generic one).
 */
public final class CounterFamilies {
    private final String prefix;
    private final String subsystem;
    private final Map<String, String> help;
    private final Function<String, String> dropReason;
    private final String[] labelNames;
    private final Metric drops;

    /**
     * @param prefix the families' prefix, e.g. {@code ipoib_arp}
     * @param subsystem what counts, for the drops' help and the generic one, e.g. {@code "The ARP resolver"}
     * @param help the help text of each counter that is not a drop, by the counter's name
     * @param dropReason the {@code reason} of a counter that counts drops, null for any other
     * @param labelNames labels every sample carries ({@code reason} is added for drops)
     */
    public CounterFamilies(String prefix, String subsystem, Map<String, String> help,
                           Function<String, String> dropReason, String... labelNames) {
        this.prefix = prefix;
        this.subsystem = subsystem;
        this.help = Map.copyOf(help);
        this.dropReason = dropReason;
        this.labelNames = labelNames.clone();
        String[] withReason = Arrays.copyOf(labelNames, labelNames.length + 1);
        withReason[labelNames.length] = "reason";
        this.drops = Metric.counter(prefix + "_drops_total", subsystem + ": what it dropped, by reason.", withReason);
    }

    /** Whether {@code counter} has a family or a reason of its own (not the generic help). */
    public boolean describes(String counter) {
        return help.containsKey(counter) || dropReason.apply(counter) != null;
    }

    /** Writes {@code counters}, in the order of their names. */
    public void write(MetricSink sink, Map<String, Long> counters, String... labelValues) {
        new TreeMap<>(counters).forEach((name, value) -> {
            String reason = dropReason.apply(name);
            if (reason != null) {
                String[] values = Arrays.copyOf(labelValues, labelValues.length + 1);
                values[labelValues.length] = reason;
                sink.sample(drops, value, values);
            } else {
                sink.sample(Metric.counter(prefix + "_" + MetricNames.part(name) + "_total",
                        help.getOrDefault(name, subsystem + ": counter " + name + "."), labelNames), value, labelValues);
            }
        });
    }
}
