package ipoib.host.internal;

import ipoib.api.host.HostRoute;
import ipoib.api.host.UdpReceiver;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.ip.Udp;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;

/** A UDP socket: the port's slot in the stack's socket table, and the send path. */
final class UdpSocketImpl implements UdpSocket {
    private final IpStack stack;
    private final int port;
    final UdpReceiver receiver;
    private volatile boolean closed;
    private volatile Connected connected;

    private record Connected(IpoibLink link, String linkName, boolean v6, long sourceHigh, long sourceLow,
                             long destinationHigh, long destinationLow, int port, int mtu) {}

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
            stack.noRouteCounted();
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        boolean v6 = destination instanceof Inet6Address;
        return send(stack.link(route.link()), route.link(), v6, AddressBits.high(route.source()),
                AddressBits.low(route.source()), AddressBits.high(destination), AddressBits.low(destination),
                destinationPort, route.mtu(), payload);
    }

    @Override
    public void connect(String linkName, InetAddress destination, int destinationPort) {
        checkOpen();
        checkPort(destinationPort);
        HostRoute route = stack.route(linkName, destination).orElseThrow(
                () -> new IllegalStateException(stack.noRoute(linkName, destination)));
        connected = new Connected(stack.link(route.link()), route.link(), destination instanceof Inet6Address,
                AddressBits.high(route.source()), AddressBits.low(route.source()), AddressBits.high(destination),
                AddressBits.low(destination), destinationPort, route.mtu());
    }

    @Override
    public TransmitResult send(MemorySegment payload) {
        checkOpen();
        Connected c = connected;
        if (c == null) {
            throw new IllegalStateException("UDP socket on port " + port + " is not connected");
        }
        return send(c.link(), c.linkName(), c.v6(), c.sourceHigh(), c.sourceLow(), c.destinationHigh(),
                c.destinationLow(), c.port(), c.mtu(), payload);
    }

    /** The burst as one post list on the connected link (its frames wait in send buffers until the end). */
    @Override
    public int send(MemorySegment[] payloads, int count) {
        checkOpen();
        if (count < 0 || count > payloads.length) {
            throw new IllegalArgumentException("invalid burst of " + count + " datagrams: allowed 0.."
                    + payloads.length);
        }
        Connected c = connected;
        if (c == null) {
            throw new IllegalStateException("UDP socket on port " + port + " is not connected");
        }
        boolean burst = c.link().beginBurst();
        try {
            int sent = 0;
            for (int i = 0; i < count; i++) {
                if (!send(c.link(), c.linkName(), c.v6(), c.sourceHigh(), c.sourceLow(), c.destinationHigh(),
                        c.destinationLow(), c.port(), c.mtu(), payloads[i]).isDrop()) {
                    sent++;
                }
            }
            return sent;
        } finally {
            if (burst) {
                c.link().endBurst();
            }
        }
    }

    private TransmitResult send(IpoibLink link, String linkName, boolean v6, long sourceHigh, long sourceLow,
                                long destinationHigh, long destinationLow, int destinationPort, int mtu,
                                MemorySegment payload) {
        long length = payload.byteSize();
        int header = PacketWriter.upperOffset(v6) + Udp.HEADER_LENGTH;
        if (header + length > mtu) {
            throw new IllegalArgumentException("UDP datagram with " + length + " octets of payload (" + (header + length)
                    + " with the IP and UDP headers) does not fit the MTU " + mtu + " of " + linkName + ": at most "
                    + (mtu - header) + " octets of payload (" + (v6 ? "IPv6" : "IPv4")
                    + " fragmentation is not supported)");
        }
        PacketWriter.Scratch s = PacketWriter.scratch();
        MemorySegment.copy(payload, 0, s.buffer, header, length);
        int packet = stack.writer().writeIp(s, v6, 17, sourceHigh, sourceLow, destinationHigh, destinationLow,
                Udp.HEADER_LENGTH + (int) length);
        if (v6) {
            Udp.writeIpv6(s.buffer, 0, port, destinationPort, (int) length);
        } else {
            Udp.writeIpv4(s.buffer, 0, PacketWriter.upperOffset(false), port, destinationPort, (int) length);
        }
        TransmitResult result = stack.transmitter().transmit(link, v6, destinationHigh, destinationLow, s.slice(packet));
        if (!result.isDrop()) {
            stack.udpSent();
        }
        return result;
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
