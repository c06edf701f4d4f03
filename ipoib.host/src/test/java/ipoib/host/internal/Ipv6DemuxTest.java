package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.EtherType;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv6Header;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The host owns the IPv6 EtherType: it classifies each packet once, hands the
 * Neighbor Discovery types 133..137 (RFC 4861 §4) to the {@link NeighborDiscoveryReceiver}s and
 * keeps everything else; without a receiver, ND packets are counted and dropped.
 */
class Ipv6DemuxTest {
    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, message -> { });
    final IpStackTest.Link a = new IpStackTest.Link("a");
    final IpStackTest.Resolver resolver = new IpStackTest.Resolver();
    final List<String> nd = new ArrayList<>();

    Ipv6DemuxTest() throws Exception {
        stack.addLink(a);
        stack.resolver(true, resolver);
        table.add("a", InetAddress.getByName("fe80::1"), 64, AddressOrigin.LINK_LOCAL, null);
        table.setState("a", InetAddress.getByName("fe80::1"), AddressState.PREFERRED);
    }

    /** An IPv6 packet from fe80::2 to {@code destination} whose ICMPv6 message has the given type (8 octets). */
    static byte[] icmpv6(int type, String destination) throws Exception {
        byte[] p = new byte[Ipv6Header.LENGTH + 8];
        MemorySegment s = MemorySegment.ofArray(p);
        InetAddress dst = InetAddress.getByName(destination);
        Ipv6Header.write(s, 0, 8, Ipv6Header.NEXT_HEADER_ICMPV6, 255, 0xfe80_0000_0000_0000L, 2,
                ipoib.api.resolve.AddressBits.high(dst), ipoib.api.resolve.AddressBits.low(dst));
        if (type == IcmpEcho.TYPE_V6_ECHO_REQUEST) {
            IcmpEcho.writeIpv6(s, 0, type, 1, 1, 0);
        } else {
            s.set(ValueLayout.JAVA_BYTE, Ipv6Header.LENGTH, (byte) type);
        }
        return p;
    }

    void receive(byte[] packet) {
        stack.ipv6Handler().onFrame(a, new IpStackTest.Frame(packet, EtherType.IPV6));
    }

    @Test
    void neighborDiscoveryTypesGoToNdAndNothingElseDoes() throws Exception {
        stack.addNdReceiver((link, frame, type) -> nd.add(link.name() + " " + type + " " + frame.payloadLength()));
        for (int type = 128; type <= 138; type++) {
            receive(icmpv6(type, "ff02::1:ff00:1"));
        }
        assertEquals(List.of("a 133 48", "a 134 48", "a 135 48", "a 136 48", "a 137 48"), nd,
                "RS, RA, NS, NA and Redirect, each once");
        receive(icmpv6(IcmpEcho.TYPE_V6_ECHO_REQUEST, "fe80::1"));
        assertEquals(5, nd.size(), "an echo request is the host's");
        // Both echo requests are the host's: type 128 of the loop above went to a group (answered, as
        // Linux's icmp/echo_ignore_multicast=0 does) and this one to the host's own address.
        assertEquals(2, stack.counters().get("echo_replies_sent"), "and the host answered them");
        assertEquals(5, stack.counters().get("rx_nd_delivered"));
        assertEquals(12, stack.counters().get("ipv6_received"));
    }

    @Test
    void withoutAnNdReceiverNdIsCountedAndDropped() throws Exception {
        receive(icmpv6(NeighborDiscoveryReceiver.NEIGHBOR_SOLICITATION, "ff02::1:ff00:1"));
        assertEquals(1, stack.counters().get("rx_nd_no_receiver"));
        NeighborDiscoveryReceiver r = (link, frame, type) -> nd.add("" + type);
        stack.addNdReceiver(r);
        receive(icmpv6(NeighborDiscoveryReceiver.NEIGHBOR_ADVERTISEMENT, "fe80::1"));
        stack.removeNdReceiver(r);
        receive(icmpv6(NeighborDiscoveryReceiver.NEIGHBOR_ADVERTISEMENT, "fe80::1"));
        assertEquals(List.of("136"), nd);
        assertEquals(2, stack.counters().get("rx_nd_no_receiver"));
    }

    @Test
    void aFailingReceiverIsCountedNotThrownIntoTheLink() throws Exception {
        List<String> warnings = new ArrayList<>();
        IpStack s = new IpStack(table, warnings::add);
        s.addLink(a);
        s.addNdReceiver((link, frame, type) -> {
            throw new IllegalStateException("broken");
        });
        s.ipv6Handler().onFrame(a, new IpStackTest.Frame(icmpv6(135, "ff02::1:ff00:1"), EtherType.IPV6));
        assertEquals(1, s.counters().get("rx_nd_receiver_errors"));
        assertEquals(1, warnings.size(), warnings.toString());
    }

    @Test
    void aTruncatedIpv6HeaderIsMalformedAndReachesNoOne() throws Exception {
        stack.addNdReceiver((link, frame, type) -> nd.add("" + type));
        byte[] whole = icmpv6(135, "ff02::1:ff00:1");
        receive(java.util.Arrays.copyOf(whole, 30));
        assertEquals(List.of(), nd);
        assertEquals(1, stack.counters().get("rx_malformed"));
    }
}
