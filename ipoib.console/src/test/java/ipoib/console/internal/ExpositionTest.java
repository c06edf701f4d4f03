package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ExpositionTest {

    @Test
    void familiesAreGroupedWithHelpAndTypeAndLabelValuesEscaped() {
        Exposition e = new Exposition();
        e.counter("ipoib_link_rx_packets_total", "Frames received.", 3, "interface", "ib0");
        e.gauge("ipoib_link_up", "1 when UP.", 1, "interface", "ib0");
        e.counter("ipoib_link_rx_packets_total", "Frames received.", 4, "interface", "a\"b\\c\nd");
        // Text format 0.0.4: one HELP/TYPE per family, its samples together; \ " and newline escaped.
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
    void aFamilyKeepsItsType() {
        Exposition e = new Exposition();
        e.counter("x_total", "x", 1);
        assertThrows(IllegalArgumentException.class, () -> e.gauge("x_total", "x", 1));
        assertThrows(IllegalArgumentException.class, () -> e.gauge("1bad", "x", 1));
    }

    @Test
    void freeFormCounterNamesBecomeSnakeCaseWithoutUnitAbbreviations() {
        assertEquals("answers_0x0600_insufficient_components", Exposition.snake("answers 0x0600 INSUFFICIENT_COMPONENTS"));
        assertEquals("neighbor_solicitation_sent", Exposition.snake("ns_sent"));
        assertEquals("rx_not_for_local", Exposition.snake("rx_not_for_us"));
        assertEquals("requests", Exposition.snake("requests_total"));
    }
}
