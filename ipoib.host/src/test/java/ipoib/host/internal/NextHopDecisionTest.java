package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.host.AddressOrigin;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NextHopKind;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceThreadCounters;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The host sends a packet the way {@link NextHopKind#of} decides, with the link's addresses: the
 * broadcast group, the multicast manager or the family's resolver. The netdev bridge's
 * {@code BridgeNextHopTest} sends the same destinations the same way, through the same function.
 */
class NextHopDecisionTest {
    /** Destinations on a link with 10.0.0.1/24 and the kind their address rules give (RFC 919, 922, 1112, 4291). */
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

    final AtomicReference<NextHopKind> took = new AtomicReference<>();
    final IpoibLink link = (IpoibLink) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {IpoibLink.class}, (p, m, a) -> switch (m.getName()) {
                case "name" -> "ib0";
                case "sendBroadcast" -> took(NextHopKind.BROADCAST);
                default -> null;
            });

    private TransmitResult took(NextHopKind kind) {
        took.set(kind);
        return TransmitResult.SENT;
    }

    @Test
    void eachDestinationLeavesTheWayTheSharedDecisionSays() throws Exception {
        AddressTable table = new AddressTable((a, c) -> { });
        table.add("ib0", InetAddress.getByName("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        NextHops nextHops = new NextHops();
        NeighbourResolver resolver = (NeighbourResolver) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {NeighbourResolver.class},
                (p, m, a) -> m.getName().equals("send") ? took(NextHopKind.UNICAST) : null);
        nextHops.ipv4 = resolver;
        nextHops.ipv6 = resolver;
        nextHops.multicast = (MulticastService) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {MulticastService.class},
                (p, m, a) -> m.getName().equals("send") ? took(NextHopKind.MULTICAST) : null);
        Transmitter transmitter = new Transmitter(table, nextHops, new InterfaceThreadCounters(new Counters()));
        MemorySegment packet = MemorySegment.ofArray(new byte[40]);

        for (Map.Entry<String, NextHopKind> e : destinations().entrySet()) {
            InetAddress a = InetAddress.getByName(e.getKey());
            boolean v6 = a.getAddress().length == 16;
            took.set(null);
            assertEquals(TransmitResult.SENT, transmitter.transmit(link, v6, AddressBits.high(a), AddressBits.low(a),
                    packet), e.getKey());
            assertEquals(e.getValue(), took.get(), e.getKey());
            assertEquals(e.getValue(), transmitter.kind(link, v6, AddressBits.high(a), AddressBits.low(a)), e.getKey());
        }
    }
}
