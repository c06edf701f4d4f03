package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricsSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Metrics sources rendered together: shared families, and sources left out whole when they fail. */
class SourceSamplesTest {

    @Test
    void twoSourcesOfOnePrefixAreOneFamilyWithTheirLabels() {
        List<String> labels = List.of("interface", "device");
        MetricsSource a = sink -> sink.counters("ipoib_netdev", Map.of("rx_ipv6_header_chain_malformed", 3L), labels,
                "ib0_1_ffff", "ib0");
        MetricsSource b = sink -> sink.counters("ipoib_netdev",
                Map.of("rx_ipv6_header_chain_malformed", 5L, "drop_no_route", 1L), labels, "ib1_1_ffff", "ib0");
        Exposition e = new Exposition();
        assertTrue(SourceSamples.copy(a, e));
        assertTrue(SourceSamples.copy(b, e));
        assertEquals("""
                # HELP ipoib_netdev_rx_ipv6_header_chain_malformed_total Counter rx_ipv6_header_chain_malformed of ipoib_netdev.
                # TYPE ipoib_netdev_rx_ipv6_header_chain_malformed_total counter
                ipoib_netdev_rx_ipv6_header_chain_malformed_total{interface="ib0_1_ffff",device="ib0"} 3
                ipoib_netdev_rx_ipv6_header_chain_malformed_total{interface="ib1_1_ffff",device="ib0"} 5
                # HELP ipoib_netdev_drops_total Dropped by ipoib_netdev, by reason.
                # TYPE ipoib_netdev_drops_total counter
                ipoib_netdev_drops_total{interface="ib1_1_ffff",device="ib0",reason="no_route"} 1
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
        assertEquals("# HELP after a\n# TYPE after gauge\nafter 2\n", e.text());
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
        assertEquals("# HELP g g\n# TYPE g gauge\ng{port=\"1\"} 1\n", e.text());
    }
}
