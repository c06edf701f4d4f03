package ipoib.api.metrics;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.osgi.annotation.versioning.ProviderType;

/** Where a {@link MetricsSource} writes the samples of one scrape; implemented by the console only. */
@ProviderType
public interface MetricSink {
    /**
     * One sample of a family, with one value per label name of {@code metric}, in that order.
     *
     * @throws IllegalArgumentException if the label values do not match the label names, or the
     *         family was written before with another help, type or label names
     */
    void sample(Metric metric, long value, String... labelValues);

    /**
     * One histogram of a {@link MetricType#HISTOGRAM} family, with one value per label name of
     * {@code metric}, in that order.
     *
     * @throws IllegalArgumentException as {@link #sample}, or when {@code metric} is not a histogram
     * @throws UnsupportedOperationException by a sink that takes counters and gauges only (the
     *         default: a lambda)
     */
    default void histogram(Metric metric, HistogramSample value, String... labelValues) {
        throw new UnsupportedOperationException("this metric sink takes no histograms (" + metric.name() + ")");
    }

    /**
     * A map of named counters (a component's statistics) as counters under {@code prefix}: a counter
     * named {@code drop_<reason>} becomes {@code <prefix>_drops_total{reason="<reason>"}}, any other
     * {@code <prefix>_<name>_total}, the name made a metric name part by {@link MetricNames#part}.
     * The help texts are generic ("Counter NAME of PREFIX."): a source that knows what its
     * counters mean writes each family with {@link #sample} and a help text of its own.
     *
     * @param labelNames labels every sample carries ({@code reason} is added for drops)
     * @param labelValues their values, in that order
     */
    default void counters(String prefix, Map<String, Long> counters, List<String> labelNames, String... labelValues) {
        String[] names = labelNames.toArray(String[]::new);
        String[] withReason = Arrays.copyOf(names, names.length + 1);
        withReason[names.length] = "reason";
        new TreeMap<>(counters).forEach((key, value) -> {
            String part = MetricNames.part(key);
            if (part.startsWith("drop_")) {
                String[] values = Arrays.copyOf(labelValues, labelValues.length + 1);
                values[labelValues.length] = part.substring("drop_".length());
                sample(Metric.counter(prefix + "_drops_total", "Dropped by " + prefix + ", by reason.", withReason),
                        value, values);
            } else {
                sample(Metric.counter(prefix + "_" + part + "_total", "Counter " + key + " of " + prefix + ".", names),
                        value, labelValues);
            }
        });
    }
}
