package ipoib.nd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.neighbour.NeighbourMetrics;
import ipoib.neighbour.Settings;
import ipoib.neighbour.testing.FakeAddresses;
import ipoib.neighbour.testing.FakeLink;
import ipoib.neighbour.testing.FakeMulticast;
import ipoib.neighbour.testing.RecordingReporter;
import ipoib.runtime.ManualClock;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ND families of {@code /metrics} after traffic on two interfaces: one series per interface
 * with that interface's counts. RFC 4862 §5.4 (one DAD probe per address, DupAddrDetectTransmits
 * 1) and RFC 4861 §7.2.2 (MAX_MULTICAST_SOLICIT 3) give the counts.
 */
class NdInterfaceMetricsTest {
    final Settings settings = Settings.DEFAULTS;
    final ManualControlLoop loop = new ManualControlLoop(new ManualClock(), null);
    final FakeAddresses addresses = new FakeAddresses();
    final FakeLink ib0 = new FakeLink("ib0", 0x0002_c903_0000_0101L, 0x11);
    final FakeLink ib1 = new FakeLink("ib1", 0x0002_c903_0000_0102L, 0x12);
    NdEngine nd;

    @BeforeEach
    void setUp() {
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        nd = new NdEngine(settings, NdOptions.DEFAULTS, loop, new RecordingReporter(),
                () -> start.plusNanos(loop.clock().nanoTime()));
        addresses.listener(nd);
        nd.setMulticast(new FakeMulticast());
        nd.setAddresses(addresses);
        nd.addLink(ib0);
        nd.addLink(ib1);
        loop.runPending();
        loop.advance(settings.retransmitMillis(), TimeUnit.MILLISECONDS); // both link-local addresses pass DAD
    }

    @AfterEach
    void tearDown() {
        nd.close();
    }

    /** Every sample of a scrape as {@code name{label="value",...}}. */
    static Map<String, Long> scrape(NdEngine nd, List<IpoibLink> links) {
        Map<String, Long> samples = new TreeMap<>();
        Map<String, List<String>> labels = new HashMap<>();
        MetricSink sink = (Metric metric, long value, String... values) -> {
            List<String> before = labels.putIfAbsent(metric.name(), metric.labelNames());
            assertTrue(before == null || before.equals(metric.labelNames()), metric.name() + " changed its labels");
            StringBuilder key = new StringBuilder(metric.name()).append('{');
            for (int i = 0; i < values.length; i++) {
                key.append(i == 0 ? "" : ",").append(metric.labelNames().get(i)).append("=\"").append(values[i]).append('"');
            }
            assertEquals(null, samples.put(key.append('}').toString(), value), "one series per label set: " + key);
        };
        NeighbourMetrics.collect(sink, NeighbourResolver.IPV6, "nd", nd, links);
        return samples;
    }

    @Test
    void eachInterfaceHasItsOwnSeries() {
        nd.send(ib0, InetAddress.ofLiteral("fe80::202:c903:0:201"), EtherType.IPV6, MemorySegment.ofArray(new byte[40]));
        loop.runPending();
        loop.advance(settings.retransmitMillis() * settings.maxSolicitations(), TimeUnit.MILLISECONDS);

        Map<String, Long> samples = scrape(nd, List.of(ib0, ib1));
        assertEquals(1, samples.get("ipoib_nd_dad_probes_sent_total{interface=\"ib0\"}"));
        assertEquals(1, samples.get("ipoib_nd_dad_probes_sent_total{interface=\"ib1\"}"));
        assertEquals(1, samples.get("ipoib_nd_dad_passed_total{interface=\"ib1\"}"));
        assertEquals(3, samples.get("ipoib_nd_neighbor_solicitation_sent_total{interface=\"ib0\"}"), "MAX_MULTICAST_SOLICIT");
        assertEquals(0, samples.get("ipoib_nd_neighbor_solicitation_sent_total{interface=\"ib1\"}"));
        assertEquals(1, samples.get("ipoib_nd_drops_total{interface=\"ib0\",reason=\"resolution_failed\"}"));
        assertEquals(0, samples.get("ipoib_nd_drops_total{interface=\"ib1\",reason=\"resolution_failed\"}"));
        assertEquals(samples.get("ipoib_nd_router_solicitations_sent_total{interface=\"ib0\"}"),
                samples.get("ipoib_nd_router_solicitations_sent_total{interface=\"ib1\"}"), "the same router discovery");
        assertEquals(nd.counters().get("dad_probes_sent"), 2, "the shell's total is the sum");
        assertTrue(samples.keySet().stream().filter(k -> k.startsWith("ipoib_nd_"))
                .allMatch(k -> k.contains("interface=\"ib0\"") || k.contains("interface=\"ib1\"")), samples.toString());
    }
}
