package ipoib.host.internal;

import ipoib.api.host.HostRoute;
import ipoib.api.host.UdpReceiver;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourSender;
import ipoib.api.resolve.NextHopKind;
import ipoib.codec.ip.Udp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A UDP socket: the port's slot in the stack's socket table, and the send path. A connected
 * socket keeps its route (link, source, MTU, kind of next hop, and the resolver's sender bound
 * to the neighbour) and checks per datagram only that the routes' generation and the link's MTU
 * are the ones it was made with: a change of an address, a link or a resolver is followed from
 * the next datagram on, without a routing decision per datagram; the bound sender follows the
 * neighbour entry (flush, link down) itself.
 */
final class UdpSocketImpl implements UdpSocket {
    private final IpStack stack;
    private final int port;
    final UdpReceiver receiver;
    private volatile boolean closed;
    private volatile Flow flow;

    /**
     * The route of a connected socket to its destination, made at the generations it names
     * ({@code link} null: there was no route then).
     */
    private record Flow(String requestedLink, InetAddress destination, int addressGeneration, int linkGeneration,
                        IpoibLink link, String linkName, int linkMtu, boolean v6, long sourceHigh, long sourceLow,
                        long destinationHigh, long destinationLow, int port, int mtu, NextHopKind kind,
                        NeighbourSender neighbour) {

        /**
         * Whether the flow may be used as it is: a route, made at the routes' current generations,
         * on a link whose MTU is the one it was made with (0, a link that is not UP, is no
         * change: the resolver drops its frames as DROPPED_LINK_DOWN, as it always did). Without
         * a route every datagram routes again, since a link coming UP changes no generation.
         */
        boolean current(IpStack stack) {
            if (link == null) {
                return false;
            }
            int mtu = link.mtu();
            return addressGeneration == stack.addressGeneration() && linkGeneration == stack.linkGeneration()
                    && (mtu == linkMtu || mtu == 0);
        }
    }

    UdpSocketImpl(IpStack stack, int port, UdpReceiver receiver) {
        this.stack = stack;
        this.port = port;
        this.receiver = receiver;
    }

    @Override
    public int localPort() {
        return port;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("UDP socket on port " + port + " is closed");
        }
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("invalid UDP destination port " + port + ": allowed 1..65535");
        }
    }

    @Override
    public TransmitResult send(String linkName, InetAddress destination, int destinationPort, MemorySegment payload) {
        checkOpen();
        checkPort(destinationPort);
        HostRoute route = stack.route(linkName, destination).orElse(null);
        if (route == null) {
            stack.noRouteCounted(linkName);
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        boolean v6 = destination instanceof Inet6Address;
        IpoibLink link = stack.link(route.link());
        long high = AddressBits.high(destination);
        long low = AddressBits.low(destination);
        return send(link, route.link(), v6, AddressBits.high(route.source()), AddressBits.low(route.source()), high, low,
                destinationPort, route.mtu(), stack.transmitter().kind(link, v6, high, low), null, payload,
                payload.byteSize());
    }

    @Override
    public void connect(String linkName, InetAddress destination, int destinationPort) {
        checkOpen();
        checkPort(destinationPort);
        Flow f = route(linkName, destination, destinationPort);
        if (f.link() == null) {
            throw new IllegalStateException(stack.noRoute(linkName, destination));
        }
        flow = f;
    }

    /** Routes to the destination now (the generations read first: a change while routing leaves the flow stale). */
    private Flow route(String linkName, InetAddress destination, int destinationPort) {
        int addresses = stack.addressGeneration();
        int links = stack.linkGeneration();
        HostRoute route = stack.route(linkName, destination).orElse(null);
        IpoibLink link = route == null ? null : stack.link(route.link());
        boolean v6 = destination instanceof Inet6Address;
        long high = AddressBits.high(destination);
        long low = AddressBits.low(destination);
        if (link == null) {
            return new Flow(linkName, destination, addresses, links, null, null, 0, v6, 0, 0, high, low,
                    destinationPort, 0, NextHopKind.UNICAST, null);
        }
        Transmitter t = stack.transmitter();
        NextHopKind kind = t.kind(link, v6, high, low);
        return new Flow(linkName, destination, addresses, links, link, route.link(), link.mtu(), v6,
                AddressBits.high(route.source()), AddressBits.low(route.source()), high, low, destinationPort,
                route.mtu(), kind, kind == NextHopKind.UNICAST ? t.neighbour(link, v6, high, low) : null);
    }

    /** The connected flow, routed again when the routes changed since it was made. */
    private Flow flow() {
        Flow f = flow;
        if (f == null) {
            throw new IllegalStateException("UDP socket on port " + port + " is not connected");
        }
        if (!f.current(stack)) {
            Flow next = route(f.requestedLink(), f.destination(), f.port());
            // Another thread may have routed meanwhile; either flow is as new as the generations it read.
            flow = next;
            f = next;
        }
        return f;
    }

    @Override
    public TransmitResult send(MemorySegment payload) {
        checkOpen();
        return send(flow(), payload, payload.byteSize());
    }

    /** Copied straight from the array: no segment made per datagram. */
    @Override
    public TransmitResult send(byte[] payload) {
        checkOpen();
        return send(flow(), payload, payload.length);
    }

    /** Copied straight from the buffer (its position and limit unchanged): no segment made per datagram. */
    @Override
    public TransmitResult send(ByteBuffer payload) {
        checkOpen();
        return send(flow(), payload, payload.remaining());
    }

    private TransmitResult send(Flow f, MemorySegment payload) {
        return send(f, payload, payload.byteSize());
    }

    /** {@code payload}: a MemorySegment, a byte[] or a ByteBuffer of {@code length} octets. */
    private TransmitResult send(Flow f, Object payload, long length) {
        if (f.link() == null) {
            stack.noRouteCounted(f.linkName());
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        return send(f.link(), f.linkName(), f.v6(), f.sourceHigh(), f.sourceLow(), f.destinationHigh(),
                f.destinationLow(), f.port(), f.mtu(), f.kind(), f.neighbour(), payload, length);
    }

    /** The burst as one post list on the connected link (its frames wait in send buffers until the end). */
    @Override
    public int send(MemorySegment[] payloads, int count) {
        checkOpen();
        if (count < 0 || count > payloads.length) {
            throw new IllegalArgumentException("invalid burst of " + count + " datagrams: allowed 0.."
                    + payloads.length);
        }
        Flow f = flow();
        if (f.link() == null) {
            for (int i = 0; i < count; i++) {
                stack.noRouteCounted(f.linkName());
            }
            return 0;
        }
        boolean burst = f.link().beginBurst();
        try {
            int sent = 0;
            for (int i = 0; i < count; i++) {
                if (i > 0 && !f.current(stack)) {
                    // The route changed within the burst: the rest follows the new one.
                    if (burst) {
                        f.link().endBurst();
                        burst = false;
                    }
                    return sent + sendEach(payloads, i, count);
                }
                if (!send(f, payloads[i]).isDrop()) {
                    sent++;
                }
            }
            return sent;
        } finally {
            if (burst) {
                f.link().endBurst();
            }
        }
    }

    /** Sends {@code payloads[from..to)} one by one, each on the route current then. */
    private int sendEach(MemorySegment[] payloads, int from, int to) {
        int sent = 0;
        for (int i = from; i < to; i++) {
            if (!send(flow(), payloads[i]).isDrop()) {
                sent++;
            }
        }
        return sent;
    }

    private TransmitResult send(IpoibLink link, String linkName, boolean v6, long sourceHigh, long sourceLow,
                                long destinationHigh, long destinationLow, int destinationPort, int mtu, NextHopKind kind,
                                NeighbourSender neighbour, Object payload, long length) {
        int header = PacketWriter.upperOffset(v6) + Udp.HEADER_LENGTH;
        if (header + length > mtu) {
            throw new IllegalArgumentException("UDP datagram with " + length + " octets of payload (" + (header + length)
                    + " with the IP and UDP headers) does not fit the MTU " + mtu + " of " + linkName + ": at most "
                    + (mtu - header) + " octets of payload (" + (v6 ? "IPv6" : "IPv4")
                    + " fragmentation is not supported)");
        }
        IpStack.Sending thread = stack.sending();
        PacketWriter.Scratch s = thread.scratch;
        copy(payload, s, header, (int) length);
        int packet = stack.writer().writeIp(s, v6, 17, sourceHigh, sourceLow, destinationHigh, destinationLow,
                Udp.HEADER_LENGTH + (int) length);
        if (v6) {
            Udp.writeIpv6(s.buffer, 0, port, destinationPort, (int) length);
        } else {
            Udp.writeIpv4(s.buffer, 0, PacketWriter.upperOffset(false), port, destinationPort, (int) length);
        }
        TransmitResult result = stack.transmitter().transmit(thread.cells, link, kind, neighbour, v6,
                destinationHigh, destinationLow, s.slice(packet));
        if (!result.isDrop()) {
            stack.udpSent(thread.cells, link.name());
        }
        return result;
    }

    /** Copies the payload behind the headers; a type switch, so that no view of the payload is made. */
    private static void copy(Object payload, PacketWriter.Scratch s, int offset, int length) {
        switch (payload) {
            case MemorySegment segment -> MemorySegment.copy(segment, 0, s.buffer, offset, length);
            case byte[] array -> MemorySegment.copy(array, 0, s.buffer, ValueLayout.JAVA_BYTE, offset, length);
            case ByteBuffer buffer -> s.view.put(offset, buffer, buffer.position(), length);
            default -> throw new IllegalArgumentException("unsupported payload " + payload.getClass().getName());
        }
    }

    @Override
    public void close() {
        closed = true;
        stack.unbind(port, this);
    }

    @Override
    public String toString() {
        return "UDP port " + port;
    }
}
