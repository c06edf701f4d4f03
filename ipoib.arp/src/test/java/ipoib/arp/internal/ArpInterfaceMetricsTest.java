package ipoib.arp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.AddressOrigin;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.neighbour.NeighbourMetrics;
import ipoib.neighbour.Settings;
import ipoib.neighbour.testing.FakeAddresses;
import ipoib.neighbour.testing.FakeLink;
import ipoib.neighbour.testing.RecordingReporter;
import ipoib.runtime.ManualClock;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ARP families of {@code /metrics} after traffic on two interfaces: one series per interface
 * with that interface's counts. ARP's defaults (3 requests 1 s apart) give the counts.
 */
class ArpInterfaceMetricsTest {
    final Settings settings = Settings.DEFAULTS;
    final ManualControlLoop loop = new ManualControlLoop(new ManualClock(), null);
    final FakeAddresses addresses = new FakeAddresses();
    final FakeLink ib0 = new FakeLink("ib0", 0x0002_c903_0000_0101L, 0x11);
    final FakeLink ib1 = new FakeLink("ib1", 0x0002_c903_0000_0102L, 0x12);
    ArpEngine arp;

    @BeforeEach
    void setUp() {
        addresses.add("ib0", InetAddress.ofLiteral("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        addresses.add("ib1", InetAddress.ofLiteral("10.0.1.1"), 24, AddressOrigin.MANUAL, null);
        arp = new ArpEngine(settings, false, loop, new RecordingReporter());
        arp.setAddresses(addresses);
        arp.addLink(ib0);
        arp.addLink(ib1);
        loop.runPending();
    }

    @AfterEach
    void tearDown() {
        arp.close();
    }

    /** Every sample of a scrape as {@code name{label="value",...}}, each family's labels checked to agree. */
    static final class Scrape implements MetricSink {
        final Map<String, Long> samples = new TreeMap<>();
        final Map<String, List<String>> labels = new HashMap<>();

        @Override
        public void sample(Metric metric, long value, String... labelValues) {
            List<String> before = labels.putIfAbsent(metric.name(), metric.labelNames());
            assertTrue(before == null || before.equals(metric.labelNames()), metric.name() + " changed its labels");
            StringBuilder key = new StringBuilder(metric.name()).append('{');
            for (int i = 0; i < labelValues.length; i++) {
                key.append(i == 0 ? "" : ",").append(metric.labelNames().get(i)).append("=\"").append(labelValues[i])
                        .append('"');
            }
            assertEquals(null, samples.put(key.append('}').toString(), value), "one series per label set: " + key);
        }
    }

    @Test
    void eachInterfaceHasItsOwnSeries() {
        // ib0: one unanswered neighbour (three requests, then FAILED and its frame dropped); ib1: two neighbours asked once.
        arp.send(ib0, InetAddress.ofLiteral("10.0.0.2"), EtherType.IPV4, MemorySegment.ofArray(new byte[20]));
        arp.send(ib1, InetAddress.ofLiteral("10.0.1.2"), EtherType.IPV4, MemorySegment.ofArray(new byte[20]));
        arp.send(ib1, InetAddress.ofLiteral("10.0.1.3"), EtherType.IPV4, MemorySegment.ofArray(new byte[20]));
        loop.runPending();
        loop.advance(settings.retransmitMillis() * settings.maxSolicitations(), TimeUnit.MILLISECONDS);

        Scrape scrape = new Scrape();
        NeighbourMetrics.collect(scrape, NeighbourResolver.IPV4, "arp", arp, List.<IpoibLink>of(ib0, ib1));

        assertEquals(List.of("interface"), scrape.labels.get("ipoib_arp_requests_sent_total"));
        assertEquals(List.of("interface", "reason"), scrape.labels.get("ipoib_arp_drops_total"));
        assertEquals(3, scrape.samples.get("ipoib_arp_requests_sent_total{interface=\"ib0\"}"));
        assertEquals(6, scrape.samples.get("ipoib_arp_requests_sent_total{interface=\"ib1\"}"),
                "two neighbours, three requests each");
        assertEquals(2, scrape.samples.get("ipoib_arp_solicitations_retransmitted_total{interface=\"ib0\"}"));
        assertEquals(4, scrape.samples.get("ipoib_arp_solicitations_retransmitted_total{interface=\"ib1\"}"));
        assertEquals(1, scrape.samples.get("ipoib_arp_drops_total{interface=\"ib0\",reason=\"resolution_failed\"}"));
        assertEquals(2, scrape.samples.get("ipoib_arp_drops_total{interface=\"ib1\",reason=\"resolution_failed\"}"));
        assertEquals(0, scrape.samples.get("ipoib_arp_replies_received_total{interface=\"ib0\"}"));
        assertEquals(arp.counters().get("requests_sent"),
                scrape.samples.get("ipoib_arp_requests_sent_total{interface=\"ib0\"}")
                        + scrape.samples.get("ipoib_arp_requests_sent_total{interface=\"ib1\"}"),
                "the series add up to the shell's total");
        assertTrue(scrape.samples.keySet().stream().filter(k -> k.startsWith("ipoib_arp_"))
                .allMatch(k -> k.contains("interface=\"ib0\"") || k.contains("interface=\"ib1\"")), scrape.samples.toString());
    }

    @Test
    void anInterfaceWithoutTrafficHasEveryCounterAtZero() {
        Scrape scrape = new Scrape();
        NeighbourMetrics.collect(scrape, NeighbourResolver.IPV4, "arp", arp, List.<IpoibLink>of(ib0, ib1));
        long ib0Series = scrape.samples.keySet().stream().filter(k -> k.startsWith("ipoib_arp_"))
                .filter(k -> k.contains("interface=\"ib0\"")).count();
        assertEquals(arp.counters().size(), ib0Series, "one series per counter");
        assertEquals(0, scrape.samples.get("ipoib_arp_requests_sent_total{interface=\"ib1\"}"));
    }
}
