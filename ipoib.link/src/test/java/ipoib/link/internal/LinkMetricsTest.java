package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.link.LinkState;
import ipoib.api.metrics.HistogramSample;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What {@code /metrics} shows of an interface on the loopback fabric: identity, port, flaps, timings. */
class LinkMetricsTest {
    private final LinkFixture fixture = new LinkFixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    /** A sink that keeps each sample by family and label values. */
    private static final class Samples implements MetricSink {
        final Map<String, Long> values = new LinkedHashMap<>();
        final Map<String, HistogramSample> histograms = new LinkedHashMap<>();

        @Override
        public void sample(Metric metric, long value, String... labelValues) {
            values.put(metric.name() + List.of(labelValues), value);
        }

        @Override
        public void histogram(Metric metric, HistogramSample value, String... labelValues) {
            histograms.put(metric.name() + List.of(labelValues), value);
        }
    }

    private Samples scrape(LinkEngine link) {
        Samples s = new Samples();
        LinkMetrics.collect(s, List.of(link));
        return s;
    }

    @Test
    void anInterfaceShowsWhatItIsItsPortAndHowOftenItLeftUp() {
        LinkEngine a = fixture.up("a", "loop0");
        Samples s = scrape(a);
        String info = "ipoib_link_info" + List.of("a", "loop0", "1", "0xffff", "datagram", a.gid().toString(),
                a.qpn().toString(), "loopback");
        assertEquals(1L, s.values.get(info), "info sample " + info + " in " + s.values.keySet());
        assertEquals(4L, s.values.get("ipoib_port_state[loop0, 1]"), "Active is 4 in PortInfo");
        // The loopback's default rate code 3 is 10 Gb/s: 1.25e9 octets per second.
        assertEquals(1_250_000_000L, s.values.get("ipoib_port_rate_bytes_per_second[loop0, 1]"));
        assertEquals(0L, s.values.get("ipoib_link_flaps_total[a]"));
        assertEquals(1, s.histograms.get("ipoib_link_broadcast_join_duration_seconds[a]").count());
        assertTrue(s.histograms.get("ipoib_sa_client_round_trip_duration_seconds[loop0, 1]").count() >= 1);

        var port = fixture.subnet.fabric().port("loop0", 1);
        fixture.subnet.fabric().setPKeys(port, List.of(ipoib.api.PKey.of(0x8001)));
        fixture.until("DOWN", () -> a.state() == LinkState.DOWN);
        fixture.subnet.fabric().setPKeys(port, List.of(ipoib.api.PKey.DEFAULT));
        fixture.until("UP again", () -> a.state() == LinkState.UP);
        Samples after = scrape(a);
        assertEquals(1L, after.values.get("ipoib_link_flaps_total[a]"), "left UP once");
        assertEquals(2, after.histograms.get("ipoib_link_broadcast_join_duration_seconds[a]").count(), "joined twice");
        assertTrue(after.values.containsKey("ipoib_link_drops_total[a, rx_dropped_malformed]"), after.values.keySet().toString());
    }
}
