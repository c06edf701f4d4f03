package ipoib.link.internal.cm;

import ipoib.api.link.EtherType;
import ipoib.codec.ip.InternetChecksum;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.codec.nd.Icmpv6Checksum;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The ICMP error Linux emulates when connected mode's large MTU meets a destination that only UD
 * reaches (multicast, broadcast, a peer without the RC flag, a failed connection): an IPv4
 * "fragmentation needed" (type 3 code 4, RFC 1191 §4, with the next-hop MTU) or an ICMPv6 "packet
 * too big" (type 2, RFC 4443 §3.1, with the MTU), addressed to the packet's own source, so that
 * the local stack learns the path MTU. Linux: drivers/infiniband/ulp/ipoib/ipoib_cm.c,
 * {@code ipoib_cm_skb_too_long} ({@code icmp_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
 * htonl(mtu))}, {@code icmpv6_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu)}), called from
 * drivers/infiniband/ulp/ipoib/ipoib_ib.c {@code ipoib_send} when a packet exceeds
 * {@code mcast_mtu}, and from {@code ipoib_cm_send} when it exceeds the connection's MTU.
 *
 * <p>Linux makes the ICMP inside the kernel that reads it. Here it reaches the stack as a received
 * packet, and through the netdev bridge the kernel of a host, which checks it as one: an IPv4
 * packet from one of the host's own addresses is a martian ({@code fib_validate_source},
 * net/ipv4/fib_frontend.c, with the default {@code accept_local} 0) and is dropped. So the IPv4
 * error comes from the packet's destination, as from the router on the path that could not
 * forward it (the link layer stands where that router would); its destination is the packet's
 * source. IPv4 packets to the broadcast or a multicast group get none, as Linux's
 * {@code __icmp_send} (net/ipv4/icmp.c) sends none for a packet routed as broadcast or multicast.
 * IPv6 keeps Linux's choice, the packet's source as the error's source too ({@code icmp6_send},
 * net/ipv6/icmp.c, takes a local address): IPv6 has no such check, and RFC 4443 §2.4 (e.3)
 * allows a "packet too big" about a multicast packet.
 */
final class TooBigNotice {
    private static final int ICMP_DEST_UNREACH = 3;
    private static final int ICMP_FRAG_NEEDED = 4;
    private static final int ICMPV6_PKT_TOOBIG = 2;
    private static final int IPV6_MIN_MTU = Ipv6Header.MIN_MTU;
    private static final int TTL = 64;

    private TooBigNotice() {}

    /**
     * The ICMP error for an IP packet too big for {@code mtu} ({@code toGroup}: sent to the
     * broadcast or a multicast group), as a whole IP packet, or null when none is due: not IP, too
     * short to be a packet, an IPv4 fragment other than the first, an IPv4 packet to a group, or
     * itself an ICMP error (RFC 1122 §3.2.2, RFC 4443 §2.4 (e)).
     */
    static byte[] build(int etherType, MemorySegment packet, int mtu, boolean toGroup) {
        if (etherType == EtherType.IPV4) {
            return toGroup ? null : ipv4(packet, mtu);
        }
        if (etherType == EtherType.IPV6) {
            return ipv6(packet, mtu);
        }
        return null;
    }

    private static byte[] ipv4(MemorySegment packet, int mtu) {
        if (packet.byteSize() < Ipv4Header.LENGTH || (u8(packet, 0) >>> 4) != 4) {
            return null;
        }
        int ihl = (u8(packet, 0) & 0xF) * 4;
        if (ihl < Ipv4Header.LENGTH || packet.byteSize() < ihl + 8) {
            return null;
        }
        if ((u16(packet, 6) & 0x1FFF) != 0) {
            return null; // not the first fragment
        }
        if (Ipv4Header.protocol(packet, 0) == Ipv4Header.PROTOCOL_ICMP && isIcmpError(u8(packet, ihl))) {
            return null;
        }
        int quoted = ihl + 8; // RFC 792: the header and the first 64 bits of the data
        int length = Ipv4Header.LENGTH + 8 + quoted;
        int source = Ipv4Header.source(packet, 0);
        int destination = Ipv4Header.destination(packet, 0);
        MemorySegment out = MemorySegment.ofArray(new byte[length]);
        Ipv4Header.write(out, 0, 0, length, 0, false, TTL, Ipv4Header.PROTOCOL_ICMP, destination, source);
        long icmp = Ipv4Header.LENGTH;
        out.set(ValueLayout.JAVA_BYTE, icmp, (byte) ICMP_DEST_UNREACH);
        out.set(ValueLayout.JAVA_BYTE, icmp + 1, (byte) ICMP_FRAG_NEEDED);
        out.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), icmp + 6, (short) mtu);
        MemorySegment.copy(packet, 0, out, icmp + 8, quoted);
        int checksum = InternetChecksum.checksum(out, icmp, 8 + quoted);
        out.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), icmp + 2, (short) checksum);
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    private static boolean isIcmpError(int type) {
        return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
    }

    private static byte[] ipv6(MemorySegment packet, int mtu) {
        if (packet.byteSize() < Ipv6Header.LENGTH || (u8(packet, 0) >>> 4) != 6) {
            return null;
        }
        if (u8(packet, 6) == Ipv6Header.NEXT_HEADER_ICMPV6 && packet.byteSize() > Ipv6Header.LENGTH
                && u8(packet, Ipv6Header.LENGTH) < 128) {
            return null; // an ICMPv6 error message
        }
        // RFC 4443 §3.1: as much of the invoking packet as fits the minimum IPv6 MTU.
        int quoted = (int) Math.min(packet.byteSize(), IPV6_MIN_MTU - Ipv6Header.LENGTH - 8);
        int icmpLength = 8 + quoted;
        MemorySegment out = MemorySegment.ofArray(new byte[Ipv6Header.LENGTH + icmpLength]);
        long sourceHigh = packet.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 8);
        long sourceLow = packet.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 16);
        Ipv6Header.write(out, 0, icmpLength, Ipv6Header.NEXT_HEADER_ICMPV6, TTL, sourceHigh, sourceLow, sourceHigh,
                sourceLow);
        long icmp = Ipv6Header.LENGTH;
        out.set(ValueLayout.JAVA_BYTE, icmp, (byte) ICMPV6_PKT_TOOBIG);
        out.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), icmp + 4, mtu);
        MemorySegment.copy(packet, 0, out, icmp + 8, quoted);
        int checksum = Icmpv6Checksum.compute(out, 0, icmpLength);
        out.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), icmp + 2, (short) checksum);
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    private static int u8(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    private static int u16(MemorySegment s, long at) {
        return s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), at) & 0xFFFF;
    }
}
