package ipoib.host.internal;

import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import ipoib.codec.DecodeException;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv6Header;
import ipoib.codec.ip.Udp;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.InterfaceThreadCounters;
import java.lang.foreign.MemorySegment;

/**
 * The one IPv6 EtherType handler: validates the header once and classifies the packet once.
 * Neighbor Discovery messages (ICMPv6 133..137) go to the {@link NdReceivers} whatever their
 * destination (solicited-node multicast, tentative addresses); the rest is kept when it is for
 * this host (its addresses, multicast) and demultiplexed to ICMPv6 echo and UDP.
 */
final class Ipv6Receiver implements FrameHandler {
    private final AddressTable table;
    private final NdReceivers nd;
    private final EchoDemux echoes;
    private final UdpSockets udp;
    private final int received;
    private final InterfaceCounters.Counter malformed;
    private final InterfaceCounters.Counter notForUs;
    private final InterfaceCounters.Counter unknownProtocol;

    Ipv6Receiver(AddressTable table, NdReceivers nd, EchoDemux echoes, UdpSockets udp,
                 InterfaceCounters counters, InterfaceThreadCounters perPacket) {
        this.table = table;
        this.nd = nd;
        this.echoes = echoes;
        this.udp = udp;
        this.received = perPacket.counter("ipv6_received");
        this.malformed = counters.counter("rx_malformed");
        this.notForUs = counters.counter("rx_not_for_us");
        this.unknownProtocol = counters.counter("rx_unknown_protocol");
    }

    @Override
    public void onFrame(IpoibLink link, ReceivedFrame frame) {
        UdpSockets.Receiving thread = udp.receiving();
        thread.cells.of(link.name()).increment(received);
        MemorySegment b = frame.buffer();
        long off = frame.payloadOffset();
        int payload;
        try {
            payload = Ipv6Header.validate(b, off, frame.payloadLength());
        } catch (DecodeException e) {
            malformed.increment(link.name());
            return;
        }
        int next = Ipv6Header.nextHeader(b, off);
        long upper = off + Ipv6Header.LENGTH;
        if (next == Ipv6Header.NEXT_HEADER_ICMPV6 && payload > 0) {
            int type = IcmpEcho.type(b, upper);
            if (NeighborDiscoveryReceiver.isNeighborDiscovery(type)) {
                nd.deliver(link, frame, type);
                return;
            }
        }
        long dstHigh = Ipv6Header.destinationHigh(b, off);
        long dstLow = Ipv6Header.destinationLow(b, off);
        boolean local = table.fast(link.name()).isLocal6(dstHigh, dstLow);
        if (!local && (dstHigh >>> 56) != 0xFF) {
            notForUs.increment(link.name());
            return;
        }
        switch (next) {
            case Ipv6Header.NEXT_HEADER_ICMPV6 -> icmp(link, b, off, payload, local);
            case Ipv6Header.NEXT_HEADER_UDP -> {
                int length;
                try {
                    length = Udp.validateIpv6(b, off, payload);
                } catch (DecodeException e) {
                    malformed.increment(link.name());
                    return;
                }
                udp.deliver(thread, link, true, b, off, upper, length);
            }
            default -> unknownProtocol.increment(link.name());
        }
    }

    private void icmp(IpoibLink link, MemorySegment b, long ip, int length, boolean local) {
        long icmp = ip + Ipv6Header.LENGTH;
        try {
            IcmpEcho.validateIpv6(b, ip, length);
        } catch (DecodeException e) {
            malformed.increment(link.name());
            return;
        }
        echoes.received(link, true, b, ip, icmp, length, local);
    }
}
