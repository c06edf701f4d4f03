package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostException;
import ipoib.api.host.HostRoute;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.InterfaceCounters;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The echo requests this host sends and the replies it matches to them by family, identifier and
 * sequence number (so that a ping may have many requests outstanding). Each request's timeout is
 * a timer of the host's control loop, and round-trip times are read from that loop's clock: a
 * manual loop in tests moves both.
 */
final class EchoRequests {
    private static final int ECHO_V6 = 1 << 31;

    private record Pending(CompletableFuture<EchoReply> reply, long sentNanos) {}

    private final HostLinks links;
    private final PacketWriter writer;
    private final Transmitter transmitter;
    private final ControlLoop timers;
    private final ConcurrentHashMap<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final InterfaceCounters.Counter requestsOut;
    private final InterfaceCounters.Counter repliesIn;
    private final InterfaceCounters.Counter unmatched;

    EchoRequests(HostLinks links, PacketWriter writer, Transmitter transmitter, InterfaceCounters counters,
                 ControlLoop timers) {
        this.links = links;
        this.writer = writer;
        this.transmitter = transmitter;
        this.timers = timers;
        this.requestsOut = counters.counter("echo_requests_sent");
        this.repliesIn = counters.counter("echo_replies_received");
        this.unmatched = counters.counter("echo_replies_unmatched");
    }

    private static int key(boolean v6, int identifier, int sequence) {
        return (v6 ? ECHO_V6 : 0) | identifier << 16 | sequence;
    }

    /** Sends one echo request on a route already chosen (see {@link ipoib.api.host.IpHost#echo(HostRoute, int, int, int, Duration)}). */
    CompletableFuture<EchoReply> send(HostRoute route, int identifier, int sequence, int payloadLength,
                                      Duration timeout) {
        if (identifier < 0 || identifier > 0xFFFF || sequence < 0 || sequence > 0xFFFF) {
            throw new IllegalArgumentException("echo identifier " + identifier + " and sequence " + sequence
                    + " must be 0..65535");
        }
        if (payloadLength < 0) {
            throw new IllegalArgumentException("echo payload length " + payloadLength + " is negative");
        }
        InetAddress destination = route.nextHop();
        boolean v6 = destination instanceof Inet6Address;
        int header = PacketWriter.upperOffset(v6) + IcmpEcho.HEADER_LENGTH;
        if (header + payloadLength > route.mtu()) {
            throw new IllegalArgumentException("echo request of " + (header + payloadLength)
                    + " octets does not fit the MTU " + route.mtu() + " of " + route.link() + ": at most "
                    + (route.mtu() - header) + " octets of payload (fragmentation is not supported)");
        }
        IpoibLink link = links.get(route.link());
        if (link == null) {
            return CompletableFuture.failedFuture(new HostException("interface " + route.link() + " is gone",
                    TransmitResult.DROPPED_LINK_DOWN));
        }
        int key = key(v6, identifier, sequence);
        CompletableFuture<EchoReply> reply = new CompletableFuture<>();
        Pending request = new Pending(reply, timers.clock().nanoTime());
        Pending previous = pending.put(key, request);
        if (previous != null) {
            previous.reply().completeExceptionally(new HostException("superseded by a new request with the same "
                    + "identifier and sequence", TransmitResult.DROPPED_NO_ROUTE));
        }
        reply.whenComplete((r, f) -> pending.remove(key, request));
        PacketWriter.Scratch s = PacketWriter.scratch();
        for (int i = 0; i < payloadLength; i++) {
            s.buffer.set(ValueLayout.JAVA_BYTE, header + i, (byte) (0x10 + i));
        }
        long dstHigh = AddressBits.high(destination);
        long dstLow = AddressBits.low(destination);
        int length = writer.writeIp(s, v6, v6 ? Ipv6Header.NEXT_HEADER_ICMPV6 : Ipv4Header.PROTOCOL_ICMP,
                AddressBits.high(route.source()), AddressBits.low(route.source()), dstHigh, dstLow,
                IcmpEcho.HEADER_LENGTH + payloadLength);
        if (v6) {
            IcmpEcho.writeIpv6(s.buffer, 0, IcmpEcho.TYPE_V6_ECHO_REQUEST, identifier, sequence, payloadLength);
        } else {
            IcmpEcho.writeIpv4(s.buffer, Ipv4Header.LENGTH, IcmpEcho.TYPE_ECHO_REQUEST, identifier, sequence,
                    payloadLength);
        }
        TransmitResult result = transmitter.transmit(link, v6, dstHigh, dstLow, s.slice(length));
        if (result.isDrop()) {
            reply.completeExceptionally(new HostException("echo request to " + AddressBits.text(destination) + " via "
                    + route.link() + " not sent: " + result + Transmitter.why(result, v6), result));
            return reply;
        }
        requestsOut.increment(link.name());
        timeOut(reply, timeout);
        return reply;
    }

    /** Fails the request with a {@link TimeoutException} when no reply came within {@code timeout}. */
    private void timeOut(CompletableFuture<EchoReply> reply, Duration timeout) {
        Cancellable timer = timers.schedule(() -> reply.completeExceptionally(new TimeoutException(
                "no echo reply within " + timeout.toMillis() + " ms")), timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (timers.isClosed()) {
            reply.completeExceptionally(new HostException("the host layer stopped", TransmitResult.DROPPED_LINK_DOWN));
        }
        reply.whenComplete((r, f) -> timer.cancel());
    }

    /** An echo reply (validated) at {@code icmp} in the IP packet at {@code ip}: completes the request it answers, or counts it as unmatched. */
    void replied(IpoibLink link, boolean v6, MemorySegment b, long ip, long icmp, int length) {
        int identifier = IcmpEcho.identifier(b, icmp);
        int sequence = IcmpEcho.sequence(b, icmp);
        Pending request = pending.get(key(v6, identifier, sequence));
        if (request == null) {
            unmatched.increment(link.name());
            return;
        }
        repliesIn.increment(link.name());
        long rtt = timers.clock().nanoTime() - request.sentNanos();
        InetAddress from = v6 ? AddressBits.ipv6(Ipv6Header.sourceHigh(b, ip), Ipv6Header.sourceLow(b, ip))
                : AddressBits.ipv4(Ipv4Header.source(b, ip));
        int hopLimit = v6 ? Ipv6Header.hopLimit(b, ip) : Ipv4Header.ttl(b, ip);
        request.reply().complete(new EchoReply(link.name(), from, identifier, sequence,
                length - IcmpEcho.HEADER_LENGTH, hopLimit, Duration.ofNanos(rtt)));
    }

    /** Fails the requests still waiting (the host is stopping). */
    void close() {
        HostException stopped = new HostException("the host layer stopped", TransmitResult.DROPPED_LINK_DOWN);
        for (Pending p : pending.values()) {
            p.reply().completeExceptionally(stopped);
        }
        pending.clear();
    }
}
