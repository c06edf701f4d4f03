package ipoib.host.internal;

import ipoib.api.host.UdpDatagram;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.codec.ip.Udp;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/** The receive thread's reusable view of a received UDP datagram (valid during the receiver's call). */
final class ReceivedDatagram implements UdpDatagram {
    private String link;
    private boolean v6;
    private MemorySegment buffer;
    private long ip;
    private long udp;
    private int length;

    void set(String link, boolean v6, MemorySegment buffer, long ip, long udp, int length) {
        this.link = link;
        this.v6 = v6;
        this.buffer = buffer;
        this.ip = ip;
        this.udp = udp;
        this.length = length;
    }

    @Override
    public String link() {
        return link;
    }

    @Override
    public InetAddress source() {
        return v6 ? AddressBits.ipv6(Ipv6Header.sourceHigh(buffer, ip), Ipv6Header.sourceLow(buffer, ip))
                : AddressBits.ipv4(Ipv4Header.source(buffer, ip));
    }

    @Override
    public int sourcePort() {
        return Udp.sourcePort(buffer, udp);
    }

    @Override
    public InetAddress destination() {
        return v6 ? AddressBits.ipv6(Ipv6Header.destinationHigh(buffer, ip), Ipv6Header.destinationLow(buffer, ip))
                : AddressBits.ipv4(Ipv4Header.destination(buffer, ip));
    }

    @Override
    public int destinationPort() {
        return Udp.destinationPort(buffer, udp);
    }

    @Override
    public MemorySegment buffer() {
        return buffer;
    }

    @Override
    public long payloadOffset() {
        return udp + Udp.HEADER_LENGTH;
    }

    @Override
    public int payloadLength() {
        return length - Udp.HEADER_LENGTH;
    }
}
