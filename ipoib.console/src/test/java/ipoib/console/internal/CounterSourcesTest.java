package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Counter sources that share a prefix and differ by their labels, as one per bridged device. */
class CounterSourcesTest {
    @Test
    void twoSourcesOfOnePrefixAreOneFamilyWithTheirLabels() {
        CounterSources sources = new CounterSources();
        Supplier<Map<String, Long>> a = () -> Map.of("rx_ipv6_header_chain_malformed", 3L);
        Supplier<Map<String, Long>> b = () -> Map.of("rx_ipv6_header_chain_malformed", 5L, "drop_no_route", 1L);
        sources.add(a, Map.of(CounterSources.PREFIX_PROPERTY, "ipoib_netdev",
                CounterSources.LABELS_PROPERTY, new String[] {"interface=ib0_1_ffff", "device=ib0"}));
        sources.add(b, Map.of(CounterSources.PREFIX_PROPERTY, "ipoib_netdev",
                CounterSources.LABELS_PROPERTY, new String[] {"interface=ib1_1_ffff", "device=ib0"}));
        Exposition e = new Exposition();
        sources.writeTo(e);
        String text = e.text();
        assertTrue(text.contains("ipoib_netdev_rx_ipv6_header_chain_malformed_total{interface=\"ib0_1_ffff\",device=\"ib0\"} 3"),
                text);
        assertTrue(text.contains("ipoib_netdev_rx_ipv6_header_chain_malformed_total{interface=\"ib1_1_ffff\",device=\"ib0\"} 5"),
                text);
        assertTrue(text.contains("ipoib_netdev_drops_total{interface=\"ib1_1_ffff\",device=\"ib0\",reason=\"no_route\"} 1"),
                text);
        assertTrue(text.indexOf("# TYPE ipoib_netdev_rx_ipv6_header_chain_malformed_total counter")
                == text.lastIndexOf("# TYPE ipoib_netdev_rx_ipv6_header_chain_malformed_total counter"), text);
        sources.remove(a);
        Exposition after = new Exposition();
        sources.writeTo(after);
        assertTrue(!after.text().contains("ib0_1_ffff"), after.text());
    }
}
