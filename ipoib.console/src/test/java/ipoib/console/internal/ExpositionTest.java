package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import ipoib.api.metrics.HistogramSample;
import ipoib.api.metrics.Metric;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The text exposition format 0.0.4 and OpenMetrics 1.0, as the Prometheus documentation
 * ("Exposition formats") and the OpenMetrics specification describe them.
 */
class ExpositionTest {
    private static final Metric RX = Metric.counter("ipoib_link_rx_packets_total", "Frames received.", "interface");
    private static final Metric UP = Metric.gauge("ipoib_link_up", "1 when UP.", "interface");

    @Test
    void familiesAreGroupedWithHelpAndTypeAndLabelValuesEscaped() {
        Exposition e = new Exposition();
        e.sample(UP, 1, "ib0");
        e.sample(RX, 3, "ib0");
        e.sample(RX, 4, "a\"b\\c\nd");
        // One HELP/TYPE per family, its samples together (by label values), families by name; in label
        // values \ " and newline are escaped.
        assertEquals("""
                # HELP ipoib_link_rx_packets_total Frames received.
                # TYPE ipoib_link_rx_packets_total counter
                ipoib_link_rx_packets_total{interface="a\\"b\\\\c\\nd"} 4.0
                ipoib_link_rx_packets_total{interface="ib0"} 3.0
                # HELP ipoib_link_up 1 when UP.
                # TYPE ipoib_link_up gauge
                ipoib_link_up{interface="ib0"} 1.0
                """, e.text());
    }

    @Test
    void aSampleWithoutLabelsHasNoBracesAndHelpEscapesBackslashAndNewline() {
        Exposition e = new Exposition();
        e.sample(Metric.gauge("x", "a\\b\nc \"q\""), 7);
        // In HELP only \ and newline are escaped; a double quote stays as it is.
        assertEquals("# HELP x a\\\\b\\nc \"q\"\n# TYPE x gauge\nx 7.0\n", e.text());
    }

    @Test
    void aHistogramHasCumulativeBucketsUpToInfinityItsCountAndSum() {
        Exposition e = new Exposition();
        Metric m = Metric.histogram("ipoib_join_duration_seconds", "Join time.", "interface");
        e.histogram(m, new HistogramSample(new double[] {0.01, 0.1}, new long[] {1, 2, 1}, 0.35), "ib0");
        assertEquals("""
                # HELP ipoib_join_duration_seconds Join time.
                # TYPE ipoib_join_duration_seconds histogram
                ipoib_join_duration_seconds_bucket{interface="ib0",le="0.01"} 1
                ipoib_join_duration_seconds_bucket{interface="ib0",le="0.1"} 3
                ipoib_join_duration_seconds_bucket{interface="ib0",le="+Inf"} 4
                ipoib_join_duration_seconds_count{interface="ib0"} 4
                ipoib_join_duration_seconds_sum{interface="ib0"} 0.35
                """, e.text());
    }

    @Test
    void anInfoMetricIsAGaugeInTheTextFormatAndAnInfoInOpenMetrics() throws Exception {
        Exposition e = new Exposition();
        Metric info = Metric.info("ipoib_link_info", "What the interface is.", "interface", "pkey");
        e.sample(info, 1, "ib0", "0xffff");
        assertEquals("""
                # HELP ipoib_link_info What the interface is.
                # TYPE ipoib_link_info gauge
                ipoib_link_info{interface="ib0",pkey="0xffff"} 1
                """, e.text());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        e.write(out, OpenMetricsTextFormatWriter.create(), MetricSnapshots.of());
        assertEquals("""
                # TYPE ipoib_link info
                # HELP ipoib_link What the interface is.
                ipoib_link_info{interface="ib0",pkey="0xffff"} 1
                # EOF
                """, out.toString(StandardCharsets.UTF_8));
        IllegalArgumentException notOne = assertThrows(IllegalArgumentException.class, () -> e.sample(info, 2, "ib1", "1"));
        assertEquals("info metric ipoib_link_info has the value 1, not 2", notOne.getMessage());
    }

    @Test
    void aFamilyKeepsItsTypeAndLabels() {
        Exposition e = new Exposition();
        e.sample(Metric.counter("x_total", "x"), 1);
        IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class,
                () -> e.sample(Metric.gauge("x_total", "x"), 1));
        assertEquals("metric x_total is a counter with the labels [], not a gauge with [] (or its help differs)",
                wrongType.getMessage());
        assertThrows(IllegalArgumentException.class, () -> e.sample(Metric.counter("x_total", "x", "port"), 1, "1"));
        IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> e.sample(RX, 1));
        assertEquals("metric ipoib_link_rx_packets_total takes the labels [interface], not 0 values", count.getMessage());
        IllegalArgumentException histogram = assertThrows(IllegalArgumentException.class,
                () -> e.histogram(RX, HistogramSample.empty(1), "ib0"));
        assertTrue(histogram.getMessage().contains("is a counter, not a histogram"), histogram.getMessage());
        assertEquals("# HELP x_total x\n# TYPE x_total counter\nx_total 1.0\n", e.text());
    }
}
