package ipoib.host.internal;

import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import ipoib.codec.DecodeException;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Udp;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.InterfaceThreadCounters;
import java.lang.foreign.MemorySegment;

/**
 * The IPv4 EtherType handler: validates the header once, keeps what is for this host (its
 * addresses, broadcast, multicast), and demultiplexes ICMP echo and UDP. Malformed packets are
 * counted and dropped; fragments are counted and dropped (no reassembly).
 */
final class Ipv4Receiver implements FrameHandler {
    private final AddressTable table;
    private final EchoDemux echoes;
    private final UdpSockets udp;
    private final int received;
    private final InterfaceCounters.Counter malformed;
    private final InterfaceCounters.Counter fragments;
    private final InterfaceCounters.Counter notForUs;
    private final InterfaceCounters.Counter unknownProtocol;

    Ipv4Receiver(AddressTable table, EchoDemux echoes, UdpSockets udp, InterfaceCounters counters, InterfaceThreadCounters perPacket) {
        this.table = table;
        this.echoes = echoes;
        this.udp = udp;
        this.received = perPacket.counter("ipv4_received");
        this.malformed = counters.counter("rx_malformed");
        this.fragments = counters.counter("rx_fragments_dropped");
        this.notForUs = counters.counter("rx_not_for_us");
        this.unknownProtocol = counters.counter("rx_unknown_protocol");
    }

    @Override
    public void onFrame(IpoibLink link, ReceivedFrame frame) {
        UdpSockets.Receiving thread = udp.receiving();
        thread.cells.of(link.name()).increment(received);
        MemorySegment b = frame.buffer();
        long off = frame.payloadOffset();
        int h;
        try {
            h = Ipv4Header.validate(b, off, frame.payloadLength());
        } catch (DecodeException e) {
            malformed.increment(link.name());
            return;
        }
        if (Ipv4Header.isFragment(b, off)) {
            fragments.increment(link.name());
            return;
        }
        int dst = Ipv4Header.destination(b, off);
        AddressTable.Fast mine = table.fast(link.name());
        boolean local = mine.isLocal4(dst);
        if (!local && dst != -1 && (dst >>> 28) != 0xE && !mine.isBroadcast4(dst)) {
            notForUs.increment(link.name());
            return;
        }
        int total = Ipv4Header.totalLength(b, off);
        switch (Ipv4Header.protocol(b, off)) {
            case Ipv4Header.PROTOCOL_ICMP -> icmp(link, b, off, h, total - h, local);
            case Ipv4Header.PROTOCOL_UDP -> {
                int length;
                try {
                    length = Udp.validateIpv4(b, off, h, total - h);
                } catch (DecodeException e) {
                    malformed.increment(link.name());
                    return;
                }
                udp.deliver(thread, link, false, b, off, off + h, length);
            }
            default -> unknownProtocol.increment(link.name());
        }
    }

    private void icmp(IpoibLink link, MemorySegment b, long ip, int h, int length, boolean local) {
        long icmp = ip + h;
        try {
            IcmpEcho.validateIpv4(b, icmp, length);
        } catch (DecodeException e) {
            malformed.increment(link.name());
            return;
        }
        echoes.received(link, false, b, ip, icmp, length, local);
    }
}
