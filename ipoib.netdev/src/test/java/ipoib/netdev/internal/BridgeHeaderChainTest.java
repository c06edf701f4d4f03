package ipoib.netdev.internal;

import static ipoib.netdev.internal.Ipv6Packets.ALL_NODES;
import static ipoib.netdev.internal.Ipv6Packets.DESTINATION_OPTIONS;
import static ipoib.netdev.internal.Ipv6Packets.FRAGMENT;
import static ipoib.netdev.internal.Ipv6Packets.HOP_BY_HOP;
import static ipoib.netdev.internal.Ipv6Packets.ICMPV6;
import static ipoib.netdev.internal.Ipv6Packets.LINK_LOCAL_1;
import static ipoib.netdev.internal.Ipv6Packets.ROUTING;
import static ipoib.netdev.internal.Ipv6Packets.UDP;
import static ipoib.netdev.internal.Ipv6Packets.ULA_2;
import static ipoib.netdev.internal.Ipv6Packets.echoRequest;
import static ipoib.netdev.internal.Ipv6Packets.fragment;
import static ipoib.netdev.internal.Ipv6Packets.ipv6;
import static ipoib.netdev.internal.Ipv6Packets.options;
import static ipoib.netdev.internal.Ipv6Packets.routerAdvertisement;
import static ipoib.netdev.internal.Ipv6Packets.routing;
import static ipoib.netdev.internal.Ipv6Packets.udp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The bridge classifies IPv6 by what follows the whole extension-header chain (RFC 8200 §4): Neighbor
 * Discovery never crosses between the kernel and the fabric whatever headers precede it, other
 * traffic behind headers crosses, and a chain that cannot be parsed is dropped and counted.
 */
class BridgeHeaderChainTest {
    private final BridgeHarness h = new BridgeHarness(false);

    /** Router Advertisements behind headers a host can put there, each as a whole IPv6 packet. */
    private static Map<String, byte[]> advertisementsBehindHeaders() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("Destination Options", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ALL_NODES, options(ICMPV6, 1),
                routerAdvertisement()));
        m.put("Hop-by-Hop, Destination Options", ipv6(HOP_BY_HOP, LINK_LOCAL_1, ALL_NODES,
                options(DESTINATION_OPTIONS, 1), options(ICMPV6, 2), routerAdvertisement()));
        m.put("Destination Options, Routing, Destination Options", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ALL_NODES,
                options(ROUTING, 1), routing(DESTINATION_OPTIONS), options(ICMPV6, 3), routerAdvertisement()));
        m.put("Hop-by-Hop of 24 octets", ipv6(HOP_BY_HOP, LINK_LOCAL_1, ALL_NODES, options(ICMPV6, 3),
                routerAdvertisement()));
        m.put("a first fragment", ipv6(FRAGMENT, LINK_LOCAL_1, ALL_NODES, fragment(ICMPV6, 0, true),
                routerAdvertisement()));
        m.put("an atomic fragment", ipv6(FRAGMENT, LINK_LOCAL_1, ALL_NODES, fragment(DESTINATION_OPTIONS, 0, false),
                options(ICMPV6, 1), routerAdvertisement()));
        return m;
    }

    @Test
    void aRouterAdvertisementBehindADestinationOptionsHeaderFromTheFabricNeverReachesTheKernel() {
        h.fromFabric(advertisementsBehindHeaders().get("Destination Options"));
        assertEquals(0, h.device.written.size(), "the kernel must not get an RA: it would configure SLAAC and a route");
        assertEquals(1, h.counter("rx_nd_kept_in_stack"));
    }

    @Test
    void neighborDiscoveryBehindAnyChainCrossesNeitherWay() {
        int n = 0;
        for (Map.Entry<String, byte[]> e : advertisementsBehindHeaders().entrySet()) {
            h.fromFabric(e.getValue());
            h.fromKernel(e.getValue());
            n++;
            assertEquals(0, h.device.written.size(), "written to the kernel: the RA behind " + e.getKey());
            assertEquals(0, h.sent.size(), "sent to the fabric: the kernel's RA behind " + e.getKey());
            assertEquals(n, h.counter("rx_nd_kept_in_stack"), e.getKey());
            assertEquals(n, h.counter("tx_kernel_nd_dropped"), e.getKey());
        }
        assertEquals(0, h.counter("rx_ipv6_header_chain_malformed"));
        assertEquals(0, h.counter("tx_ipv6_header_chain_malformed"));
    }

    @Test
    void otherTrafficBehindHeadersAndLaterFragmentsCrossBothWays() {
        byte[][] packets = {
                ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ULA_2, options(ROUTING, 1), routing(UDP), udp()),
                ipv6(HOP_BY_HOP, LINK_LOCAL_1, ULA_2, options(ICMPV6, 1), echoRequest()),
                // A later fragment has no upper-layer header: its bytes are data, whatever they look like.
                ipv6(FRAGMENT, LINK_LOCAL_1, ULA_2, fragment(ICMPV6, 185, false), routerAdvertisement()),
        };
        for (byte[] p : packets) {
            h.fromFabric(p);
            h.fromKernel(p);
        }
        assertEquals(packets.length, h.device.written.size());
        assertEquals(packets.length, h.sent.size());
        for (int i = 0; i < packets.length; i++) {
            assertArrayEquals(packets[i], h.device.written.get(i));
            assertArrayEquals(packets[i], h.sent.get(i));
        }
    }

    @Test
    void aChainThatCannotBeParsedIsDroppedAndCountedBothWays() {
        byte[] nine = new byte[0];
        for (int i = 0; i < 9; i++) {
            nine = BridgeHarness.concat(nine, options(i == 8 ? UDP : DESTINATION_OPTIONS, 1));
        }
        Map<String, byte[]> bad = new LinkedHashMap<>();
        bad.put("a header running past the packet", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ALL_NODES,
                Arrays.copyOf(options(ICMPV6, 3), 16)));
        bad.put("Hop-by-Hop after another header", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ALL_NODES,
                options(HOP_BY_HOP, 1), options(ICMPV6, 1), routerAdvertisement()));
        bad.put("nine extension headers", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ULA_2, nine, udp()));
        bad.put("a chain longer than fits a minimum-MTU first fragment", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ULA_2,
                options(UDP, 160), udp()));
        bad.put("a first fragment without the whole chain", ipv6(FRAGMENT, LINK_LOCAL_1, ALL_NODES,
                fragment(DESTINATION_OPTIONS, 0, true), new byte[] {ICMPV6, 1, 1, 0}));
        bad.put("ICMPv6 without its header", ipv6(DESTINATION_OPTIONS, LINK_LOCAL_1, ALL_NODES, options(ICMPV6, 1),
                new byte[] {(byte) 134, 0}));
        int n = 0;
        for (Map.Entry<String, byte[]> e : bad.entrySet()) {
            h.fromFabric(e.getValue());
            h.fromKernel(e.getValue());
            n++;
            assertEquals(0, h.device.written.size(), "written to the kernel: " + e.getKey());
            assertEquals(0, h.sent.size(), "sent to the fabric: " + e.getKey());
            assertEquals(n, h.counter("rx_ipv6_header_chain_malformed"), e.getKey());
            assertEquals(n, h.counter("tx_ipv6_header_chain_malformed"), e.getKey());
        }
        h.fromFabric(Arrays.copyOf(ipv6(UDP, LINK_LOCAL_1, ULA_2, udp()), 39));
        assertEquals(0, h.device.written.size(), "a frame shorter than the IPv6 header");
        assertEquals(n + 1, h.counter("rx_ipv6_header_chain_malformed"));
    }
}
