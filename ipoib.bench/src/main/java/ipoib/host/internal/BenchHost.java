package ipoib.host.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.UdpReceiver;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.NeighbourResolver;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;

/**
 * The host layer without OSGi (the address table and the IP stack under the DS components), for
 * the benchmarks in {@code ipoib.bench}: it lives in the stack's package because the stack is
 * package-private. The IPv4 frame handler is what the component registers for EtherType 0x0800.
 */
public final class BenchHost implements AutoCloseable {
    private final AddressTable table = new AddressTable((a, c) -> { });
    private final IpStack stack = new IpStack(table, message -> System.err.println("host: " + message));

    /** The address table as the resolvers see it. */
    public final InterfaceAddresses addresses = new InterfaceAddresses() {
        @Override public List<InterfaceAddress> addresses(String linkName) { return table.addresses(linkName); }
        @Override public InterfaceAddress add(String l, InetAddress a, int p, AddressOrigin o, Instant v) { return table.add(l, a, p, o, v); }
        @Override public boolean remove(String l, InetAddress a) { return table.remove(l, a); }
        @Override public boolean setState(String l, InetAddress a, ipoib.api.host.AddressState s) { return table.setState(l, a, s); }
    };

    public void addLink(IpoibLink link, InetAddress address, int prefixLength) {
        stack.addLink(link);
        table.add(link.name(), address, prefixLength, AddressOrigin.MANUAL, null);
    }

    public void ipv4Resolver(NeighbourResolver resolver) {
        stack.ipv4Resolver = resolver;
    }

    /** The receive path of IPv4 (the handler the component registers). */
    public FrameHandler ipv4Handler() {
        return stack::receiveIpv4;
    }

    /** A UDP socket on {@code port}, as {@code UdpService.open} gives. */
    public UdpSocket open(int port, UdpReceiver receiver) {
        UdpSocketImpl socket = new UdpSocketImpl(stack, port, receiver);
        if (!stack.sockets.compareAndSet(port, null, socket)) {
            throw new IllegalStateException("UDP port " + port + " is in use");
        }
        return socket;
    }

    @Override
    public void close() {
        stack.close();
    }
}
