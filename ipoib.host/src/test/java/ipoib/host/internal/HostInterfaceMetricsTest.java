package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.EchoReply;
import ipoib.api.link.EtherType;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The host families of {@code /metrics} after a ping between two interfaces: one series per
 * interface with that interface's counts (a sends the request and receives the reply, b the
 * other way round).
 */
class HostInterfaceMetricsTest {
    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, message -> { });
    final IpStackTest.Link a = new IpStackTest.Link("a");
    final IpStackTest.Link b = new IpStackTest.Link("b");
    final IpStackTest.Resolver resolver = new IpStackTest.Resolver();

    @BeforeEach
    void setUp() {
        stack.addLink(a);
        stack.addLink(b);
        stack.resolver(false, resolver);
        table.add("a", InetAddress.ofLiteral("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        table.add("b", InetAddress.ofLiteral("10.0.0.2"), 24, AddressOrigin.MANUAL, null);
    }

    /** Every sample of a scrape as {@code name{label="value",...}}. */
    static Map<String, Long> scrape(HostMetrics metrics) {
        Map<String, Long> samples = new TreeMap<>();
        Map<String, List<String>> labels = new HashMap<>();
        metrics.collect((Metric metric, long value, String... values) -> {
            List<String> before = labels.putIfAbsent(metric.name(), metric.labelNames());
            assertTrue(before == null || before.equals(metric.labelNames()), metric.name() + " changed its labels");
            StringBuilder key = new StringBuilder(metric.name()).append('{');
            for (int i = 0; i < values.length; i++) {
                key.append(i == 0 ? "" : ",").append(metric.labelNames().get(i)).append("=\"").append(values[i]).append('"');
            }
            assertEquals(null, samples.put(key.append('}').toString(), value), "one series per label set: " + key);
        });
        return samples;
    }

    @Test
    void aPingBetweenTwoInterfacesCountsOnEach() throws Exception {
        CompletableFuture<EchoReply> reply = stack.echo(null, InetAddress.ofLiteral("10.0.0.2"), 7, 1, 24,
                Duration.ofSeconds(5));
        stack.ipv4Handler().onFrame(b, new IpStackTest.Frame(resolver.sent.remove(0).packet(), EtherType.IPV4));
        stack.ipv4Handler().onFrame(a, new IpStackTest.Frame(resolver.sent.remove(0).packet(), EtherType.IPV4));
        reply.get(1, TimeUnit.SECONDS);
        stack.ipv4Handler().onFrame(b, new IpStackTest.Frame(new byte[] {0x45, 0, 0}, EtherType.IPV4));

        Map<String, Long> samples = scrape(new HostMetrics(stack));
        assertEquals(1, samples.get("ipoib_host_echo_requests_sent_total{interface=\"a\"}"));
        assertEquals(0, samples.get("ipoib_host_echo_requests_sent_total{interface=\"b\"}"));
        assertEquals(1, samples.get("ipoib_host_echo_requests_received_total{interface=\"b\"}"));
        assertEquals(1, samples.get("ipoib_host_echo_replies_sent_total{interface=\"b\"}"));
        assertEquals(1, samples.get("ipoib_host_echo_replies_received_total{interface=\"a\"}"));
        assertEquals(1, samples.get("ipoib_host_ipv4_received_total{interface=\"a\"}"), "the reply");
        assertEquals(2, samples.get("ipoib_host_ipv4_received_total{interface=\"b\"}"), "the request and the runt");
        assertEquals(1, samples.get("ipoib_host_tx_sent_total{interface=\"a\"}"));
        assertEquals(1, samples.get("ipoib_host_tx_sent_total{interface=\"b\"}"));
        assertEquals(1, samples.get("ipoib_host_drops_total{interface=\"b\",reason=\"malformed\"}"));
        assertEquals(0, samples.get("ipoib_host_drops_total{interface=\"a\",reason=\"malformed\"}"));
        assertEquals(0, samples.get("ipoib_host_timer_failures_total{}"), "a count of no interface has no label");
        assertEquals(stack.counters().get("ipv4_received"), samples.get("ipoib_host_ipv4_received_total{interface=\"a\"}")
                + samples.get("ipoib_host_ipv4_received_total{interface=\"b\"}"), "the series add up to the total");
    }

    @Test
    void aNameThatIsNoInterfaceMakesNoSeries() {
        stack.echo("nosuch", InetAddress.ofLiteral("10.0.0.2"), 7, 1, 24, Duration.ofSeconds(5));
        Map<String, Long> samples = scrape(new HostMetrics(stack));
        assertEquals(1, stack.counters().get("tx_no_route"));
        assertTrue(samples.keySet().stream().noneMatch(k -> k.contains("nosuch")), samples.toString());
    }

    @Test
    void countingPerInterfaceAllocatesNothing() {
        long[] delivered = new long[1];
        ipoib.api.host.UdpSocket socket = stack.open(4000, d -> delivered[0]++);
        socket.send("a", InetAddress.ofLiteral("10.0.0.2"), 4000, java.lang.foreign.MemorySegment.ofArray(new byte[32]));
        IpStackTest.Frame toB = new IpStackTest.Frame(resolver.sent.remove(0).packet(), EtherType.IPV4);
        resolver.record = false;
        socket.connect("a", InetAddress.ofLiteral("10.0.0.2"), 4000); // the allocation-free send
        java.lang.foreign.MemorySegment payload = java.lang.foreign.MemorySegment.ofArray(new byte[32]);
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        Runnable round = () -> {
            socket.send(payload); // tx and udp_sent of a
            stack.ipv4Handler().onFrame(b, toB); // delivered on b
            stack.ipv4Handler().onFrame(a, toB); // not for a: a drop of a
        };
        for (int i = 0; i < 100_000; i++) {
            round.run();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // As the neighbour engine's test: well under an octet per round (a one-off of the JVM's is no packet's).
        assertTrue(allocated < 20_000 * 16L / 100, allocated + " octets allocated by 20,000 rounds over two interfaces");
        Map<String, Long> samples = scrape(new HostMetrics(stack));
        assertEquals(delivered[0], samples.get("ipoib_host_udp_received_total{interface=\"b\"}"));
        assertEquals(120_001, samples.get("ipoib_host_udp_sent_total{interface=\"a\"}"));
        assertEquals(120_000, samples.get("ipoib_host_drops_total{interface=\"a\",reason=\"not_for_us\"}"));
    }
}
