package ipoib.console.internal;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import ipoib.api.metrics.HistogramSample;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One scrape's families as the sources wrote them, checked (label count, one definition per
 * family), then handed to the Prometheus Java client's data model ({@link MetricSnapshots}) and
 * written by its writers: the text format 0.0.4 or OpenMetrics, whichever the scraper asks for.
 * A gauge whose name ends with {@code _info} ({@link Metric#info}) is an info metric.
 */
final class Exposition implements MetricSink {
    private record Point(String[] labelValues, long value, HistogramSample histogram) {}

    private record Family(Metric metric, List<Point> points) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    @Override
    public void sample(Metric metric, long value, String... labelValues) {
        if (metric.type() == MetricType.HISTOGRAM) {
            throw new IllegalArgumentException("metric " + metric.name() + " is a histogram: write it with histogram()");
        }
        if (metric.name().endsWith("_info") && value != 1) {
            throw new IllegalArgumentException("info metric " + metric.name() + " has the value 1, not " + value);
        }
        family(metric, labelValues).points().add(new Point(labelValues.clone(), value, null));
    }

    @Override
    public void histogram(Metric metric, HistogramSample value, String... labelValues) {
        if (metric.type() != MetricType.HISTOGRAM) {
            throw new IllegalArgumentException("metric " + metric.name() + " is a " + metric.type().text()
                    + ", not a histogram: write it with sample()");
        }
        family(metric, labelValues).points().add(new Point(labelValues.clone(), 0, value));
    }

    private Family family(Metric metric, String[] labelValues) {
        if (labelValues.length != metric.labelNames().size()) {
            throw new IllegalArgumentException("metric " + metric.name() + " takes the labels " + metric.labelNames()
                    + ", not " + labelValues.length + " values");
        }
        for (String v : labelValues) {
            if (v == null) {
                throw new IllegalArgumentException("metric " + metric.name() + " has a label without a value: "
                        + Arrays.toString(labelValues));
            }
        }
        Family family = families.computeIfAbsent(metric.name(), n -> new Family(metric, new ArrayList<>()));
        if (!family.metric().equals(metric)) {
            throw new IllegalArgumentException("metric " + metric.name() + " is a " + family.metric().type().text()
                    + " with the labels " + family.metric().labelNames() + ", not a " + metric.type().text()
                    + " with " + metric.labelNames() + " (or its help differs)");
        }
        return family;
    }

    /** True when every family of {@code other} is new here or written the same way. */
    boolean accepts(Exposition other) {
        for (Family f : other.families.values()) {
            Family mine = families.get(f.metric().name());
            if (mine != null && !mine.metric().equals(f.metric())) {
                return false;
            }
        }
        return true;
    }

    /** The families in the Prometheus client's model, with {@code others} (the JVM's) beside them. */
    MetricSnapshots snapshots(MetricSnapshots others) {
        MetricSnapshots.Builder out = MetricSnapshots.builder();
        families.values().forEach(f -> out.metricSnapshot(snapshot(f)));
        for (MetricSnapshot s : others) {
            if (!out.containsMetricName(s.getMetadata().getName())) {
                out.metricSnapshot(s);
            }
        }
        return out.build();
    }

    private static MetricSnapshot snapshot(Family f) {
        Metric m = f.metric();
        String[] names = m.labelNames().toArray(String[]::new);
        switch (m.type()) {
            case COUNTER -> {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(m.name()).help(m.help());
                f.points().forEach(p -> b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .labels(Labels.of(names, p.labelValues())).value(p.value()).build()));
                return b.build();
            }
            case HISTOGRAM -> {
                HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(m.name()).help(m.help());
                f.points().forEach(p -> b.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .labels(Labels.of(names, p.labelValues())).classicHistogramBuckets(buckets(p.histogram()))
                        .sum(p.histogram().sum()).build()));
                return b.build();
            }
            default -> {
                if (m.name().endsWith("_info")) {
                    InfoSnapshot.Builder b = InfoSnapshot.builder().name(m.name().substring(0, m.name().length() - 5))
                            .help(m.help());
                    f.points().forEach(p -> b.dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder()
                            .labels(Labels.of(names, p.labelValues())).build()));
                    return b.build();
                }
                GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(m.name()).help(m.help());
                f.points().forEach(p -> b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .labels(Labels.of(names, p.labelValues())).value(p.value()).build()));
                return b.build();
            }
        }
    }

    /** The client's buckets: the bounds with +Inf last, the counts per bucket (not cumulative). */
    private static ClassicHistogramBuckets buckets(HistogramSample h) {
        double[] bounds = Arrays.copyOf(h.upperBounds(), h.upperBounds().length + 1);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        return ClassicHistogramBuckets.of(bounds, h.bucketCounts());
    }

    /** Writes the families (and {@code others}) with {@code writer}. */
    void write(OutputStream out, ExpositionFormatWriter writer, MetricSnapshots others) throws IOException {
        writer.write(out, snapshots(others));
    }

    /** The families alone in the text format 0.0.4. */
    String text() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(out, PrometheusTextFormatWriter.create(), MetricSnapshots.of());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
