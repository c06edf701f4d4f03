package ipoib.api.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Metric families checked against the Prometheus data model's naming rules, and counter maps as families. */
class MetricTest {

    @Test
    void namesAndLabelsFollowTheDataModel() {
        assertEquals(List.of("interface"), Metric.counter("ipoib:x_total", "h", "interface").labelNames());
        assertEquals("metric name '1x' is not valid: allowed [a-zA-Z_:][a-zA-Z0-9_:]*",
                assertThrows(IllegalArgumentException.class, () -> Metric.gauge("1x", "h")).getMessage());
        assertEquals("label name '__name' of metric x is not valid: allowed [a-zA-Z_][a-zA-Z0-9_]*, not starting with __",
                assertThrows(IllegalArgumentException.class, () -> Metric.gauge("x", "h", "__name")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Metric.gauge("x", "h", "a:b"));
        assertEquals("counter name 'x' does not end with _total",
                assertThrows(IllegalArgumentException.class, () -> Metric.counter("x", "h")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Metric.gauge("x", " "));
        assertThrows(IllegalArgumentException.class, () -> Metric.gauge("x", "h", "port", "port"));
        assertEquals("counter", MetricType.COUNTER.text());
        assertEquals("gauge", MetricType.GAUGE.text());
    }

    @Test
    void freeFormCounterNamesBecomeNamePartsWithoutUnitAbbreviations() {
        assertEquals("answers_0x0600_insufficient_components", MetricNames.part("answers 0x0600 INSUFFICIENT_COMPONENTS"));
        assertEquals("neighbor_solicitation_sent", MetricNames.part("ns_sent"));
        assertEquals("rx_not_for_local", MetricNames.part("rx_not_for_us"));
        assertEquals("requests", MetricNames.part("requests_total"));
        assertEquals("unnamed", MetricNames.part("--"));
    }

    @Test
    void aCounterMapBecomesCountersAndDropsByReason() {
        List<String> lines = new ArrayList<>();
        MetricSink sink = (metric, value, labels) -> lines.add(metric.name() + " " + metric.type().text() + " "
                + metric.labelNames() + "=" + List.of(labels) + " " + value);
        sink.counters("ipoib_fabric", Map.of("delivered", 7L, "drop_loss", 2L, "Drop corrupt", 1L), List.of("port"), "1");
        assertEquals(List.of("ipoib_fabric_drops_total counter [port, reason]=[1, corrupt] 1",
                "ipoib_fabric_delivered_total counter [port]=[1] 7",
                "ipoib_fabric_drops_total counter [port, reason]=[1, loss] 2"), lines);
    }

    @Test
    void aHistogramNameHasNoSeriesSuffixAndNoLabelLeAndAnInfoNameEndsWithInfo() {
        Metric.histogram("ipoib_join_duration_seconds", "h", "interface");
        IllegalArgumentException suffix = assertThrows(IllegalArgumentException.class,
                () -> Metric.histogram("ipoib_join_seconds_count", "h"));
        assertEquals("histogram name 'ipoib_join_seconds_count' ends with a suffix of its series: allowed a name "
                + "without _bucket, _sum, _count or _total", suffix.getMessage());
        IllegalArgumentException le = assertThrows(IllegalArgumentException.class,
                () -> Metric.histogram("ipoib_join_seconds", "h", "le"));
        assertEquals("histogram ipoib_join_seconds has a label 'le': that label holds its buckets' bounds", le.getMessage());
        assertEquals(MetricType.GAUGE, Metric.info("ipoib_link_info", "i", "interface").type());
        assertThrows(IllegalArgumentException.class, () -> Metric.info("ipoib_link", "i"));
    }

    @Test
    void aHistogramSampleHasOneBucketMoreThanBoundsAndIncreasingBounds() {
        HistogramSample h = new HistogramSample(new double[] {0.1, 1}, new long[] {1, 2, 3}, 4.5);
        assertEquals(6, h.count());
        IllegalArgumentException buckets = assertThrows(IllegalArgumentException.class,
                () -> new HistogramSample(new double[] {1}, new long[] {1}, 0));
        assertEquals("a histogram with 1 bounds has 2 buckets (the last above every bound), not 1", buckets.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new HistogramSample(new double[] {1, 1}, new long[3], 0));
    }
}
