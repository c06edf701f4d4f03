package ipoib.bench;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.EtherType;
import ipoib.api.link.TransmitResult;
import ipoib.host.internal.AddressTable;
import ipoib.host.internal.IpStack;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/**
 * The host layer alone, on one thread: host A (10.0.0.1/24, ARP with a permanent entry for B)
 * sends UDP from a connected socket over a {@link ShortLink} whose send hands the frame straight
 * to host B's IPv4 handler (10.0.0.2/24), whose socket copies the payload out and counts it. No
 * fabric, no second thread: the sum is the host layer's own work per datagram on both sides,
 * plus one copy standing for the link's.
 */
final class HostLayer implements AutoCloseable {
    final ShortLink linkA = new ShortLink("ib0", 0x0002_c903_0000_0101L, 0x11);
    final ShortLink linkB = new ShortLink("ib1", 0x0002_c903_0000_0201L, 0x12);
    final AddressTable addressesA = new AddressTable((a, c) -> { });
    final AddressTable addressesB = new AddressTable((a, c) -> { });
    final IpStack hostA = new IpStack(addressesA, message -> System.err.println("host A: " + message));
    final IpStack hostB = new IpStack(addressesB, message -> System.err.println("host B: " + message));
    final BenchArp arpA;
    final UdpSocket sender;
    final UdpSocket receiver;
    private final MemorySegment sink = Arena.ofAuto().allocate(4096);
    long delivered;

    HostLayer() throws Exception {
        hostA.addLink(linkA);
        hostB.addLink(linkB);
        addressesA.add(linkA.name(), HostPair.A, 24, AddressOrigin.MANUAL, null);
        addressesB.add(linkB.name(), HostPair.B, 24, AddressOrigin.MANUAL, null);
        arpA = new BenchArp("A", addressesA, linkA);
        hostA.resolver(false, arpA.engine);
        arpA.engine.addPermanent(linkA.name(), HostPair.B, linkB.address());
        receiver = hostB.open(HostPair.PORT, datagram -> {
            MemorySegment.copy(datagram.buffer(), datagram.payloadOffset(), sink, 0, datagram.payloadLength());
            delivered++;
        });
        sender = hostA.open(HostPair.PORT, datagram -> { });
        sender.connect(linkA.name(), HostPair.B, HostPair.PORT);
        MemorySegment probe = MemorySegment.ofArray(new byte[8]);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (sender.send(probe) != TransmitResult.SENT) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the permanent neighbour did not resolve");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // ARP's control thread answers; no spin
        }
    }

    /** From now on a datagram sent is received by host B on the same thread. */
    void connectReceiver() {
        linkA.peer = linkB;
        linkA.peerHandler = hostB.ipv4Handler();
    }

    /** Host B receives the last frame the sender sent again (its copy in B's buffer). */
    void receiveAgain(int ipLength) {
        linkB.receiveAgain(hostB.ipv4Handler(), EtherType.IPV4, ipLength);
    }

    /** Copies the last frame host A sent into host B's receive buffer (for {@link #receiveAgain}). */
    void primeReceiver(MemorySegment payload) {
        linkA.peer = linkB;
        linkA.peerHandler = (link, frame) -> { };
        sender.send(payload);
        linkA.peer = null;
    }

    @Override
    public void close() {
        sender.close();
        receiver.close();
        arpA.close();
        hostA.close();
        hostB.close();
    }
}
