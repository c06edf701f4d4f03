package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.metrics.Metric;
import org.junit.jupiter.api.Test;

/** The text exposition format 0.0.4, as the Prometheus documentation ("Exposition formats") describes it. */
class ExpositionTest {
    private static final Metric RX = Metric.counter("ipoib_link_rx_packets_total", "Frames received.", "interface");
    private static final Metric UP = Metric.gauge("ipoib_link_up", "1 when UP.", "interface");

    @Test
    void familiesAreGroupedWithHelpAndTypeAndLabelValuesEscaped() {
        Exposition e = new Exposition();
        e.sample(RX, 3, "ib0");
        e.sample(UP, 1, "ib0");
        e.sample(RX, 4, "a\"b\\c\nd");
        // One HELP/TYPE per family, its samples together; in label values \ " and newline are escaped.
        assertEquals("""
                # HELP ipoib_link_rx_packets_total Frames received.
                # TYPE ipoib_link_rx_packets_total counter
                ipoib_link_rx_packets_total{interface="ib0"} 3
                ipoib_link_rx_packets_total{interface="a\\"b\\\\c\\nd"} 4
                # HELP ipoib_link_up 1 when UP.
                # TYPE ipoib_link_up gauge
                ipoib_link_up{interface="ib0"} 1
                """, e.text());
    }

    @Test
    void aSampleWithoutLabelsHasNoBracesAndHelpEscapesBackslashAndNewline() {
        Exposition e = new Exposition();
        e.sample(Metric.gauge("x", "a\\b\nc \"q\""), 7);
        // In HELP only \ and newline are escaped; a double quote stays as it is.
        assertEquals("# HELP x a\\\\b\\nc \"q\"\n# TYPE x gauge\nx 7\n", e.text());
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
        assertEquals("# HELP x_total x\n# TYPE x_total counter\nx_total 1\n", e.text());
    }
}
