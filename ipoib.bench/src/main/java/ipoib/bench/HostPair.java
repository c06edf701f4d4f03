package ipoib.bench;

import ipoib.api.host.UdpSocket;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.TransmitResult;
import ipoib.arp.internal.ArpEngine;
import ipoib.host.internal.AddressTable;
import ipoib.host.internal.IpStack;
import ipoib.api.host.AddressOrigin;
import ipoib.link.internal.LinkEngine;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Two hosts, each with the host layer (the {@link IpStack} engine: IP, UDP) and ARP on one IPoIB
 * interface of a loopback subnet (10.0.0.1/24 and 10.0.0.2/24), wired as the components wire them
 * but without OSGi. The receiving host has a UDP socket that copies every datagram's payload into a
 * preallocated buffer and counts it; the sending host has a socket connected to it.
 */
final class HostPair implements AutoCloseable {
    static final int PORT = 9000;
    static final InetAddress A = InetAddress.ofLiteral("10.0.0.1");
    static final InetAddress B = InetAddress.ofLiteral("10.0.0.2");

    final LoopbackSubnet subnet;
    final LinkEngine linkA;
    final LinkEngine linkB;
    final AddressTable addressesA = new AddressTable((a, c) -> { });
    final AddressTable addressesB = new AddressTable((a, c) -> { });
    final IpStack hostA = new IpStack(addressesA, message -> System.err.println("host A: " + message));
    final IpStack hostB = new IpStack(addressesB, message -> System.err.println("host B: " + message));
    final BenchArp arpOnA;
    final BenchArp arpOnB;
    final ArpEngine arpA;
    final ArpEngine arpB;
    final UdpSocket sender;
    final UdpSocket receiver;
    final Deliveries delivered = new Deliveries(true);
    private final MemorySegment sink = Arena.ofAuto().allocate(4096);
    private long sent;

    /** A frame handler whose target is set once the resolver exists (the link needs its handlers first). */
    private static final class Late implements FrameHandler {
        volatile FrameHandler target;

        @Override
        public void onFrame(ipoib.api.link.IpoibLink link, ipoib.api.link.ReceivedFrame frame) {
            FrameHandler t = target;
            if (t != null) {
                t.onFrame(link, frame);
            }
        }
    }

    HostPair() throws Exception {
        subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5);
        Late arpOfA = new Late();
        Late arpOfB = new Late();
        linkA = BenchLinks.open(subnet, "ib0", "loop0", Map.of(EtherType.IPV4, hostA.ipv4Handler(), EtherType.ARP, arpOfA));
        linkB = BenchLinks.open(subnet, "ib1", "loop1", Map.of(EtherType.IPV4, hostB.ipv4Handler(), EtherType.ARP, arpOfB));
        hostA.addLink(linkA);
        addressesA.add(linkA.name(), A, 24, AddressOrigin.MANUAL, null);
        hostB.addLink(linkB);
        addressesB.add(linkB.name(), B, 24, AddressOrigin.MANUAL, null);
        arpOnA = new BenchArp("A", addressesA, linkA);
        arpOnB = new BenchArp("B", addressesB, linkB);
        arpA = arpOnA.engine;
        arpB = arpOnB.engine;
        arpOfA.target = arpA;
        arpOfB.target = arpB;
        hostA.resolver(false, arpA);
        hostB.resolver(false, arpB);
        receiver = hostB.open(PORT, datagram -> {
            MemorySegment.copy(datagram.buffer(), datagram.payloadOffset(), sink, 0, datagram.payloadLength());
            delivered.increment();
        });
        sender = hostA.open(PORT, datagram -> { });
        sender.connect("ib0", B, PORT);
    }

    /** Sends one datagram (resolving the neighbour first if needed), waiting while the window is full. */
    void sendOne(MemorySegment payload) {
        awaitWindow(1);
        TransmitResult r;
        while ((r = sender.send(payload)) != TransmitResult.SENT) {
            if (r == TransmitResult.QUEUED) {
                break;
            }
            Thread.onSpinWait();
        }
        sent++;
    }

    /**
     * Sends {@code n} datagrams as one burst ({@link UdpSocket#send(MemorySegment[], int)}: one
     * post list on the link), waiting first until the window has room for all of them.
     */
    void sendBurst(MemorySegment[] payloads, int n) {
        awaitWindow(n);
        int done = sender.send(payloads, n);
        while (done < n) {
            Thread.onSpinWait();
            if (sender.send(payloads[done]) != TransmitResult.SENT) {
                continue;
            }
            done++;
        }
        sent += n;
    }

    /** Waits until {@code n} more fit the window, as {@link LinkPair#awaitWindow} waits (spin, yield, then sleep). */
    private void awaitWindow(int n) {
        long needed = sent + n - LinkPair.WINDOW;
        if (delivered.get() < needed) {
            delivered.awaitAtLeast(needed, sent + n - LinkPair.WINDOW / 2);
        }
    }

    /** Waits until every datagram sent was delivered. */
    boolean drain() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (delivered.get() < sent && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return delivered.get() >= sent;
    }

    @Override
    public void close() {
        sender.close();
        receiver.close();
        arpOnA.close();
        arpOnB.close();
        hostA.close();
        hostB.close();
        linkA.close();
        linkB.close();
        subnet.close();
    }
}
