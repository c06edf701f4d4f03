package ipoib.api.metrics;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One metric family: its name, help text, type and the names of its labels (whose values each
 * sample gives). Names follow the Prometheus data model: a metric name matches
 * {@code [a-zA-Z_:][a-zA-Z0-9_:]*}, a label name {@code [a-zA-Z_][a-zA-Z0-9_]*} and does not start
 * with {@code __}; a counter's name ends with {@code _total}; a histogram's name ends with none of
 * the suffixes of its series ({@code _bucket}, {@code _sum}, {@code _count}, nor {@code _total})
 * and it has no label {@code le}.
 *
 * @param name the family's name, e.g. {@code ipoib_link_rx_packets_total}
 * @param help one line saying what is counted or measured
 * @param type counter, gauge or histogram
 * @param labelNames the labels every sample of the family carries, in this order
 */
public record Metric(String name, String help, MetricType type, List<String> labelNames) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    public Metric {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("metric name '" + name + "' is not valid: allowed [a-zA-Z_:][a-zA-Z0-9_:]*");
        }
        if (type == null) {
            throw new IllegalArgumentException("metric " + name + " has no type: allowed counter, gauge or histogram");
        }
        if (type == MetricType.HISTOGRAM && name.matches(".*_(bucket|sum|count|total)")) {
            throw new IllegalArgumentException("histogram name '" + name
                    + "' ends with a suffix of its series: allowed a name without _bucket, _sum, _count or _total");
        }
        if (type == MetricType.COUNTER && !name.endsWith("_total")) {
            throw new IllegalArgumentException("counter name '" + name + "' does not end with _total");
        }
        if (help == null || help.isBlank()) {
            throw new IllegalArgumentException("metric " + name + " has no help text");
        }
        labelNames = List.copyOf(labelNames);
        for (String label : labelNames) {
            if (!LABEL.matcher(label).matches() || label.startsWith("__")) {
                throw new IllegalArgumentException("label name '" + label + "' of metric " + name
                        + " is not valid: allowed [a-zA-Z_][a-zA-Z0-9_]*, not starting with __");
            }
        }
        if (type == MetricType.HISTOGRAM && labelNames.contains("le")) {
            throw new IllegalArgumentException("histogram " + name + " has a label 'le': that label holds its buckets' bounds");
        }
        if (labelNames.stream().distinct().count() != labelNames.size()) {
            throw new IllegalArgumentException("metric " + name + " repeats a label name: " + labelNames);
        }
    }

    public static Metric counter(String name, String help, String... labelNames) {
        return new Metric(name, help, MetricType.COUNTER, List.of(labelNames));
    }

    public static Metric gauge(String name, String help, String... labelNames) {
        return new Metric(name, help, MetricType.GAUGE, List.of(labelNames));
    }

    /**
     * An info metric (Prometheus' convention): a gauge named {@code <name>_info} whose samples
     * have the value 1 and carry the facts in their labels.
     */
    public static Metric info(String name, String help, String... labelNames) {
        if (!name.endsWith("_info")) {
            throw new IllegalArgumentException("info metric name '" + name + "' does not end with _info");
        }
        return gauge(name, help, labelNames);
    }

    public static Metric histogram(String name, String help, String... labelNames) {
        return new Metric(name, help, MetricType.HISTOGRAM, List.of(labelNames));
    }
}
