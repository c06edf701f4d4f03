package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.metrics.HistogramSample;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricsSource;
import org.junit.jupiter.api.Test;

/** Metrics sources rendered together: shared families, and sources left out whole when they fail. */
class SourceSamplesTest {

    @Test
    void twoSourcesOfOneFamilyAreOneFamilyWithTheirLabelsAndHistograms() {
        Metric drops = Metric.counter("ipoib_netdev_drops_total", "Dropped, by reason.", "interface", "device", "reason");
        Metric times = Metric.histogram("ipoib_netdev_write_duration_seconds", "Writes.", "interface");
        MetricsSource a = sink -> {
            sink.sample(drops, 3, "ib0_1_ffff", "ib0", "malformed");
            sink.histogram(times, new HistogramSample(new double[] {1}, new long[] {2, 0}, 0.5), "ib0_1_ffff");
        };
        MetricsSource b = sink -> sink.sample(drops, 1, "ib1_1_ffff", "ib0", "no_route");
        Exposition e = new Exposition();
        assertTrue(SourceSamples.copy(a, e));
        assertTrue(SourceSamples.copy(b, e));
        assertEquals("""
                # HELP ipoib_netdev_drops_total Dropped, by reason.
                # TYPE ipoib_netdev_drops_total counter
                ipoib_netdev_drops_total{device="ib0",interface="ib0_1_ffff",reason="malformed"} 3.0
                ipoib_netdev_drops_total{device="ib0",interface="ib1_1_ffff",reason="no_route"} 1.0
                # HELP ipoib_netdev_write_duration_seconds Writes.
                # TYPE ipoib_netdev_write_duration_seconds histogram
                ipoib_netdev_write_duration_seconds_bucket{interface="ib0_1_ffff",le="1.0"} 2
                ipoib_netdev_write_duration_seconds_bucket{interface="ib0_1_ffff",le="+Inf"} 2
                ipoib_netdev_write_duration_seconds_count{interface="ib0_1_ffff"} 2
                ipoib_netdev_write_duration_seconds_sum{interface="ib0_1_ffff"} 0.5
                """, e.text());
    }

    @Test
    void aSourceThatFailsHalfWayIsLeftOutWhole() {
        Exposition e = new Exposition();
        MetricsSource failing = sink -> {
            sink.sample(Metric.gauge("half_written", "h"), 1);
            throw new IllegalStateException("the bundle is stopping");
        };
        assertFalse(SourceSamples.copy(failing, e));
        assertTrue(SourceSamples.copy(sink -> sink.sample(Metric.gauge("after", "a"), 2), e));
        assertEquals("# HELP after a\n# TYPE after gauge\nafter 2.0\n", e.text());
    }

    @Test
    void aSourceThatDisagreesWithAFamilyAlreadyWrittenIsLeftOut() {
        Exposition e = new Exposition();
        assertTrue(SourceSamples.copy(sink -> sink.sample(Metric.gauge("g", "g", "port"), 1, "1"), e));
        MetricsSource other = sink -> {
            sink.sample(Metric.gauge("mine", "m"), 5);
            sink.sample(Metric.gauge("g", "g", "device"), 2, "loop0");
        };
        assertFalse(SourceSamples.copy(other, e));
        assertEquals("# HELP g g\n# TYPE g gauge\ng{port=\"1\"} 1.0\n", e.text());
    }
}
