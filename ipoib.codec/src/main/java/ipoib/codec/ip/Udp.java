package ipoib.codec.ip;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The UDP header (RFC 768): source port, destination port, length (header and data), checksum
 * over the pseudo-header, header and data. A computed checksum of zero is sent as 0xFFFF; a
 * received zero means "no checksum" over IPv4 and is refused over IPv6 (RFC 8200 §8.1).
 */
public final class Udp {
    private Udp() {}

    /** Length of the header. */
    public static final int HEADER_LENGTH = 8;

    /**
     * Writes the header of a datagram that follows the IPv4 header at {@code ipv4Offset} (written
     * already, {@code ipv4HeaderLength} long), its {@code dataLength} octets of data in place,
     * and the checksum.
     *
     * @return {@link #HEADER_LENGTH} + {@code dataLength}
     */
    public static int writeIpv4(MemorySegment buf, long ipv4Offset, int ipv4HeaderLength, int sourcePort,
                                int destinationPort, int dataLength) {
        long offset = ipv4Offset + ipv4HeaderLength;
        int length = header(buf, offset, sourcePort, destinationPort, dataLength);
        long sum = Ipv4Header.pseudoHeaderSum(Ipv4Header.source(buf, ipv4Offset), Ipv4Header.destination(buf, ipv4Offset),
                Ipv4Header.PROTOCOL_UDP, length) + headerSum(sourcePort, destinationPort, length)
                + InternetChecksum.sum(buf, offset + HEADER_LENGTH, length - HEADER_LENGTH);
        putChecksum(buf, offset, sum);
        return length;
    }

    /**
     * Writes the header of a datagram that follows the IPv6 header at {@code ipv6Offset} (written
     * already), its data in place, and the checksum.
     *
     * @return {@link #HEADER_LENGTH} + {@code dataLength}
     */
    public static int writeIpv6(MemorySegment buf, long ipv6Offset, int sourcePort, int destinationPort,
                                int dataLength) {
        long offset = ipv6Offset + Ipv6Header.LENGTH;
        int length = header(buf, offset, sourcePort, destinationPort, dataLength);
        long sum = Ipv6Header.pseudoHeaderSum(buf, ipv6Offset, length, Ipv6Header.NEXT_HEADER_UDP)
                + headerSum(sourcePort, destinationPort, length)
                + InternetChecksum.sum(buf, offset + HEADER_LENGTH, length - HEADER_LENGTH);
        putChecksum(buf, offset, sum);
        return length;
    }

    /**
     * The sum of the header's words with a zero checksum, from the values: the octets were just
     * stored, and reading them back wide would stall on store forwarding.
     */
    private static long headerSum(int sourcePort, int destinationPort, int length) {
        return sourcePort + destinationPort + length;
    }

    /** The checksum of the datagram's sum; a computed zero is sent as 0xFFFF (RFC 768). */
    private static void putChecksum(MemorySegment buf, long offset, long sum) {
        int checksum = InternetChecksum.complement(sum);
        Wire.put16(buf, offset + 6, checksum == 0 ? 0xFFFF : checksum);
    }

    private static int header(MemorySegment buf, long offset, int sourcePort, int destinationPort, int dataLength) {
        // In long: a data length near Integer.MAX_VALUE must not wrap into a small length.
        long wanted = (long) HEADER_LENGTH + dataLength;
        if (sourcePort < 0 || sourcePort > 0xFFFF || destinationPort < 0 || destinationPort > 0xFFFF || dataLength < 0
                || wanted > 0xFFFF) {
            throw new IllegalArgumentException("UDP ports " + sourcePort + ", " + destinationPort + " or length " + wanted
                    + " do not fit their fields (ports 0..65535, length 8..65535)");
        }
        int length = (int) wanted;
        if (offset < 0 || offset > buf.byteSize() - length) {
            throw new IndexOutOfBoundsException("UDP datagram needs " + length + " octets at offset " + offset + " of a "
                    + buf.byteSize() + "-octet buffer");
        }
        Wire.put64(buf, offset, (long) sourcePort << 48 | (long) destinationPort << 32 | (long) length << 16);
        return length;
    }

    /**
     * Checks the datagram behind the validated IPv4 header at {@code ipv4Offset}, whose payload
     * (the datagram) has {@code ipPayloadLength} octets: the UDP length fits, and the checksum
     * unless it is zero.
     *
     * @return the UDP length (header and data)
     * @throws DecodeException for a truncated datagram, a bad length or a wrong checksum
     */
    public static int validateIpv4(MemorySegment buf, long ipv4Offset, int ipv4HeaderLength, int ipPayloadLength)
            throws DecodeException {
        long offset = ipv4Offset + ipv4HeaderLength;
        int length = length(buf, offset, ipPayloadLength);
        if (Wire.u16(buf, offset + 6) == 0) {
            return length;
        }
        long sum = Ipv4Header.pseudoHeaderSum(Ipv4Header.source(buf, ipv4Offset), Ipv4Header.destination(buf, ipv4Offset),
                Ipv4Header.PROTOCOL_UDP, length) + InternetChecksum.sum(buf, offset, length);
        check(buf, offset, sum);
        return length;
    }

    /**
     * Checks the datagram behind the IPv6 header at {@code ipv6Offset}, with {@code ipPayloadLength}
     * octets of IPv6 payload: the UDP length fits, and the checksum, which IPv6 requires.
     *
     * @return the UDP length (header and data)
     * @throws DecodeException for a truncated datagram, a bad length, a zero or a wrong checksum
     */
    public static int validateIpv6(MemorySegment buf, long ipv6Offset, int ipPayloadLength) throws DecodeException {
        long offset = ipv6Offset + Ipv6Header.LENGTH;
        int length = length(buf, offset, ipPayloadLength);
        if (Wire.u16(buf, offset + 6) == 0) {
            throw new DecodeException("UDP checksum", offset + 6, "is 0, which IPv6 does not allow (RFC 8200 §8.1)");
        }
        long sum = Ipv6Header.pseudoHeaderSum(buf, ipv6Offset, length, Ipv6Header.NEXT_HEADER_UDP)
                + InternetChecksum.sum(buf, offset, length);
        check(buf, offset, sum);
        return length;
    }

    private static int length(MemorySegment buf, long offset, int available) throws DecodeException {
        if (available < HEADER_LENGTH) {
            throw new DecodeException("UDP header", offset, "truncated: needs 8 octets, " + Math.max(0, available)
                    + " available");
        }
        Wire.require(buf, offset, available, "UDP datagram");
        int length = Wire.u16(buf, offset + 4);
        if (length < HEADER_LENGTH || length > available) {
            throw new DecodeException("UDP length", offset + 4, "is " + length + ", expected 8.." + available);
        }
        return length;
    }

    private static void check(MemorySegment buf, long offset, long sum) throws DecodeException {
        if (InternetChecksum.fold(sum) != 0xFFFF) {
            int stored = Wire.u16(buf, offset + 6);
            throw new DecodeException("UDP checksum", offset + 6, String.format("is 0x%04x, expected 0x%04x", stored,
                    InternetChecksum.complement(sum - stored)));
        }
    }

    public static int sourcePort(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "UDP header");
        return Wire.u16(buf, offset);
    }

    public static int destinationPort(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "UDP header");
        return Wire.u16(buf, offset + 2);
    }

    public static int length(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "UDP header");
        return Wire.u16(buf, offset + 4);
    }
}
