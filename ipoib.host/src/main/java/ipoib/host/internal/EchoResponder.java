package ipoib.host.internal;

import ipoib.api.link.IpoibLink;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.runtime.InterfaceCounters;
import java.lang.foreign.MemorySegment;

/**
 * Answers echo requests to the host's addresses on the link they arrived on, from the address
 * they were sent to (no routing decision: the reply retraces the request). Requests to a group
 * or to the broadcast address follow Linux's defaults (RFC 4391 hosts behave as Linux's): IPv6
 * echo to a multicast group is answered ({@code net.ipv6.icmp.echo_ignore_multicast} 0), IPv4
 * echo to a broadcast or multicast address is not ({@code net.ipv4.icmp_echo_ignore_broadcasts}
 * 1); the reply then comes from the link's address that a route back to the requester chooses.
 */
final class EchoResponder {
    private final PacketWriter writer;
    private final Transmitter transmitter;
    private final InterfaceCounters.Counter requestsIn;
    private final InterfaceCounters.Counter repliesOut;
    private final RouteLookup routes;
    private final InterfaceCounters.Counter groupRequestsIgnored;
    /** Configuration {@code answerEcho}. */
    volatile boolean answer = true;
    /** Configuration {@code echoIgnoreBroadcasts} (Linux's icmp_echo_ignore_broadcasts). */
    volatile boolean ignoreBroadcasts = true;
    /** Configuration {@code echoIgnoreMulticast6} (Linux's icmp/echo_ignore_multicast). */
    volatile boolean ignoreMulticast6;

    EchoResponder(PacketWriter writer, Transmitter transmitter, RouteLookup routes, InterfaceCounters counters) {
        this.writer = writer;
        this.transmitter = transmitter;
        this.routes = routes;
        this.groupRequestsIgnored = counters.counter("echo_requests_to_groups_ignored");
        this.requestsIn = counters.counter("echo_requests_received");
        this.repliesOut = counters.counter("echo_replies_sent");
    }

    /**
     * An ICMP echo request (validated) at {@code icmp} in the IPv4 packet at {@code ip};
     * {@code local}: to one of the link's addresses, else to a broadcast or multicast address.
     */
    void requested4(IpoibLink link, MemorySegment b, long ip, long icmp, int length, boolean local) {
        requestsIn.increment(link.name());
        if (!answer) {
            return;
        }
        int me = Ipv4Header.destination(b, ip);
        if (!local) {
            Integer source = ignoreBroadcasts ? null : sourceFor4(link, Ipv4Header.source(b, ip));
            if (source == null) {
                groupRequestsIgnored.increment(link.name());
                return;
            }
            me = source;
        }
        int data = length - IcmpEcho.HEADER_LENGTH;
        PacketWriter.Scratch s = PacketWriter.scratch();
        MemorySegment.copy(b, icmp + IcmpEcho.HEADER_LENGTH, s.buffer, Ipv4Header.LENGTH + IcmpEcho.HEADER_LENGTH, data);
        int src = Ipv4Header.source(b, ip);
        int packet = writer.writeIp(s, false, Ipv4Header.PROTOCOL_ICMP, 0, me, 0, src, IcmpEcho.HEADER_LENGTH + data);
        IcmpEcho.writeIpv4(s.buffer, Ipv4Header.LENGTH, IcmpEcho.TYPE_ECHO_REPLY, IcmpEcho.identifier(b, icmp),
                IcmpEcho.sequence(b, icmp), data);
        if (!transmitter.transmit(link, false, 0, src & 0xFFFF_FFFFL, s.slice(packet)).isDrop()) {
            repliesOut.increment(link.name());
        }
    }

    /**
     * An ICMPv6 echo request (validated) in the IPv6 packet at {@code ip}; {@code local}: to one
     * of the link's addresses, else to a multicast group.
     */
    void requested6(IpoibLink link, MemorySegment b, long ip, int length, boolean local) {
        requestsIn.increment(link.name());
        if (!answer) {
            return;
        }
        long meHigh = Ipv6Header.destinationHigh(b, ip);
        long meLow = Ipv6Header.destinationLow(b, ip);
        if (!local) {
            long[] source = ignoreMulticast6 ? null
                    : sourceFor6(link, Ipv6Header.sourceHigh(b, ip), Ipv6Header.sourceLow(b, ip));
            if (source == null) {
                groupRequestsIgnored.increment(link.name());
                return;
            }
            meHigh = source[0];
            meLow = source[1];
        }
        long icmp = ip + Ipv6Header.LENGTH;
        int data = length - IcmpEcho.HEADER_LENGTH;
        PacketWriter.Scratch s = PacketWriter.scratch();
        MemorySegment.copy(b, icmp + IcmpEcho.HEADER_LENGTH, s.buffer, Ipv6Header.LENGTH + IcmpEcho.HEADER_LENGTH, data);
        long srcHigh = Ipv6Header.sourceHigh(b, ip);
        long srcLow = Ipv6Header.sourceLow(b, ip);
        int packet = writer.writeIp(s, true, Ipv6Header.NEXT_HEADER_ICMPV6, meHigh, meLow, srcHigh, srcLow,
                IcmpEcho.HEADER_LENGTH + data);
        IcmpEcho.writeIpv6(s.buffer, 0, IcmpEcho.TYPE_V6_ECHO_REPLY, IcmpEcho.identifier(b, icmp),
                IcmpEcho.sequence(b, icmp), data);
        if (!transmitter.transmit(link, true, srcHigh, srcLow, s.slice(packet)).isDrop()) {
            repliesOut.increment(link.name());
        }
    }

    /** The link's IPv4 address a route back to the requester uses, or null (not the data path: a group request). */
    private Integer sourceFor4(IpoibLink link, int requester) {
        try {
            java.net.InetAddress to = java.net.InetAddress.getByAddress(java.nio.ByteBuffer.allocate(4).putInt(requester).array());
            return routes.route(link.name(), to).map(r -> java.nio.ByteBuffer.wrap(r.source().getAddress()).getInt())
                    .orElse(null);
        } catch (java.net.UnknownHostException impossible) {
            return null;
        }
    }

    /** The link's IPv6 address a route back to the requester uses (its link-local for a link-local requester), or null. */
    private long[] sourceFor6(IpoibLink link, long high, long low) {
        try {
            java.net.InetAddress to = java.net.Inet6Address.getByAddress(null,
                    java.nio.ByteBuffer.allocate(16).putLong(high).putLong(low).array(), -1);
            return routes.route(link.name(), to).map(r -> {
                java.nio.ByteBuffer a = java.nio.ByteBuffer.wrap(r.source().getAddress());
                return new long[] {a.getLong(), a.getLong()};
            }).orElse(null);
        } catch (java.net.UnknownHostException impossible) {
            return null;
        }
    }
}
