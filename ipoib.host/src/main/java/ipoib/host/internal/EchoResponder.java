package ipoib.host.internal;

import ipoib.api.link.IpoibLink;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import java.lang.foreign.MemorySegment;
import ipoib.runtime.Counters;
import java.util.concurrent.atomic.LongAdder;

/**
 * Answers echo requests to the host's addresses on the link they arrived on, from the address
 * they were sent to (no routing decision: the reply retraces the request).
 */
final class EchoResponder {
    private final PacketWriter writer;
    private final Transmitter transmitter;
    private final LongAdder requestsIn;
    private final LongAdder repliesOut;
    /** Configuration {@code answerEcho}. */
    volatile boolean answer = true;

    EchoResponder(PacketWriter writer, Transmitter transmitter, Counters counters) {
        this.writer = writer;
        this.transmitter = transmitter;
        this.requestsIn = counters.counter("echo_requests_received");
        this.repliesOut = counters.counter("echo_replies_sent");
    }

    /** An ICMP echo request (validated) at {@code icmp} in the IPv4 packet at {@code ip}. */
    void requested4(IpoibLink link, MemorySegment b, long ip, long icmp, int length) {
        requestsIn.increment();
        if (!answer) {
            return;
        }
        int data = length - IcmpEcho.HEADER_LENGTH;
        PacketWriter.Scratch s = PacketWriter.scratch();
        MemorySegment.copy(b, icmp + IcmpEcho.HEADER_LENGTH, s.buffer, Ipv4Header.LENGTH + IcmpEcho.HEADER_LENGTH, data);
        int src = Ipv4Header.source(b, ip);
        int me = Ipv4Header.destination(b, ip);
        int packet = writer.writeIp(s, false, Ipv4Header.PROTOCOL_ICMP, 0, me, 0, src, IcmpEcho.HEADER_LENGTH + data);
        IcmpEcho.writeIpv4(s.buffer, Ipv4Header.LENGTH, IcmpEcho.TYPE_ECHO_REPLY, IcmpEcho.identifier(b, icmp),
                IcmpEcho.sequence(b, icmp), data);
        if (!transmitter.transmit(link, false, 0, src & 0xFFFF_FFFFL, s.slice(packet)).isDrop()) {
            repliesOut.increment();
        }
    }

    /** An ICMPv6 echo request (validated) in the IPv6 packet at {@code ip}. */
    void requested6(IpoibLink link, MemorySegment b, long ip, int length) {
        requestsIn.increment();
        if (!answer) {
            return;
        }
        long icmp = ip + Ipv6Header.LENGTH;
        int data = length - IcmpEcho.HEADER_LENGTH;
        PacketWriter.Scratch s = PacketWriter.scratch();
        MemorySegment.copy(b, icmp + IcmpEcho.HEADER_LENGTH, s.buffer, Ipv6Header.LENGTH + IcmpEcho.HEADER_LENGTH, data);
        long srcHigh = Ipv6Header.sourceHigh(b, ip);
        long srcLow = Ipv6Header.sourceLow(b, ip);
        int packet = writer.writeIp(s, true, Ipv6Header.NEXT_HEADER_ICMPV6, Ipv6Header.destinationHigh(b, ip),
                Ipv6Header.destinationLow(b, ip), srcHigh, srcLow, IcmpEcho.HEADER_LENGTH + data);
        IcmpEcho.writeIpv6(s.buffer, 0, IcmpEcho.TYPE_V6_ECHO_REPLY, IcmpEcho.identifier(b, icmp),
                IcmpEcho.sequence(b, icmp), data);
        if (!transmitter.transmit(link, true, srcHigh, srcLow, s.slice(packet)).isDrop()) {
            repliesOut.increment();
        }
    }
}
