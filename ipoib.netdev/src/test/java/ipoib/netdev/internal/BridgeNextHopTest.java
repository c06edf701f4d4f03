package ipoib.netdev.internal;

import static ipoib.netdev.internal.Ipv6Packets.ALL_NODES;
import static ipoib.netdev.internal.Ipv6Packets.ICMPV6;
import static ipoib.netdev.internal.Ipv6Packets.LINK_LOCAL_1;
import static ipoib.netdev.internal.Ipv6Packets.ipv6;
import static ipoib.netdev.internal.Ipv6Packets.routerAdvertisement;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.resolve.NextHopKind;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The bridge sends the kernel's packets the way the host layer sends its own: by
 * {@link NextHopKind#of}, with the subnet broadcasts of the device's addresses (the host's
 * {@code NextHopDecisionTest} has the same destinations); and it passes the link's Neighbor
 * Discovery messages to the stack's ND, which no longer gets a bridged link's frames from the host.
 */
class BridgeNextHopTest {
    private final BridgeHarness h = new BridgeHarness(false);

    /** Destinations on a device with 10.0.0.1/24 and the kind their address rules give (RFC 919, 922, 1112, 4291). */
    static Map<String, NextHopKind> destinations() {
        Map<String, NextHopKind> m = new LinkedHashMap<>();
        m.put("10.0.0.2", NextHopKind.UNICAST);
        m.put("10.0.0.255", NextHopKind.BROADCAST);
        m.put("10.0.1.255", NextHopKind.UNICAST);
        m.put("255.255.255.255", NextHopKind.BROADCAST);
        m.put("224.0.0.1", NextHopKind.MULTICAST);
        m.put("239.1.2.3", NextHopKind.MULTICAST);
        m.put("ff02::1", NextHopKind.MULTICAST);
        m.put("fe80::2", NextHopKind.UNICAST);
        return m;
    }

    @Test
    void theKernelsPacketsLeaveByTheSharedDecision() throws Exception {
        h.bridge.broadcasts(new int[] {Cidr.parse("10.0.0.1/24").broadcast4()});
        for (Map.Entry<String, NextHopKind> e : destinations().entrySet()) {
            byte[] destination = InetAddress.getByName(e.getKey()).getAddress();
            h.fromKernel(destination.length == 4 ? udp4(destination) : ipv6(17, LINK_LOCAL_1, destination,
                    Ipv6Packets.udp()));
            assertEquals(e.getValue().name().toLowerCase(Locale.ROOT), h.paths.getLast(), e.getKey());
        }
        assertEquals(destinations().size(), h.paths.size());
        assertEquals(2, h.counter("tx_broadcast"));
        assertEquals(3, h.counter("tx_multicast"));
    }

    @Test
    void aNeighborDiscoveryMessageFromTheFabricGoesToTheStacksNdAndNotToTheKernel() {
        h.fromFabric(ipv6(ICMPV6, LINK_LOCAL_1, ALL_NODES, routerAdvertisement()));
        assertEquals(List.of(134), h.neighborDiscovery);
        assertEquals(0, h.device.written.size());
        assertEquals(1, h.counter("rx_nd_to_stack"));
        assertEquals(1, h.counter("rx_nd_kept_in_stack"));
    }

    /** An IPv4 UDP datagram from 10.0.0.1 to {@code destination} with 8 octets of payload (RFC 791, RFC 768). */
    private static byte[] udp4(byte[] destination) {
        ByteBuffer b = ByteBuffer.allocate(20 + 16);
        b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putInt(0).put((byte) 64).put((byte) 17)
                .putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(destination);
        b.put(Ipv6Packets.udp());
        return b.array();
    }
}
