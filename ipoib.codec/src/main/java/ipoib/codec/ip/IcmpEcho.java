package ipoib.codec.ip;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * ICMP echo (RFC 792) and ICMPv6 echo (RFC 4443 §4.1, §4.2): type, code 0, checksum, identifier,
 * sequence number, then the data. The ICMP checksum covers the message; the ICMPv6 checksum
 * also the IPv6 pseudo-header, so the IPv6 variants take the offset of the IPv6 header, with
 * the message right behind it.
 */
public final class IcmpEcho {
    private IcmpEcho() {}

    /** Length of the echo header. */
    public static final int HEADER_LENGTH = 8;
    public static final int TYPE_ECHO_REPLY = 0;
    public static final int TYPE_ECHO_REQUEST = 8;
    public static final int TYPE_V6_ECHO_REQUEST = 128;
    public static final int TYPE_V6_ECHO_REPLY = 129;

    /**
     * Writes the echo header of an ICMP message at {@code offset} whose {@code dataLength}
     * octets of data follow it already, and the checksum over header and data.
     *
     * @return {@link #HEADER_LENGTH} + {@code dataLength}
     */
    public static int writeIpv4(MemorySegment buf, long offset, int type, int identifier, int sequence, int dataLength) {
        header(buf, offset, type, identifier, sequence, dataLength);
        Wire.put16(buf, offset + 2, InternetChecksum.checksum(buf, offset, HEADER_LENGTH + dataLength));
        return HEADER_LENGTH + dataLength;
    }

    /**
     * Writes the echo header of an ICMPv6 message that follows the IPv6 header at
     * {@code ipv6Offset} (already written, with its addresses), and the checksum.
     *
     * @return {@link #HEADER_LENGTH} + {@code dataLength}
     */
    public static int writeIpv6(MemorySegment buf, long ipv6Offset, int type, int identifier, int sequence,
                                int dataLength) {
        long offset = ipv6Offset + Ipv6Header.LENGTH;
        header(buf, offset, type, identifier, sequence, dataLength);
        int length = HEADER_LENGTH + dataLength;
        long sum = Ipv6Header.pseudoHeaderSum(buf, ipv6Offset, length, Ipv6Header.NEXT_HEADER_ICMPV6)
                + InternetChecksum.sum(buf, offset, length);
        Wire.put16(buf, offset + 2, InternetChecksum.complement(sum));
        return length;
    }

    private static void header(MemorySegment buf, long offset, int type, int identifier, int sequence, int dataLength) {
        if (type < 0 || type > 255 || identifier < 0 || identifier > 0xFFFF || sequence < 0 || sequence > 0xFFFF
                || dataLength < 0) {
            throw new IllegalArgumentException("ICMP echo type " + type + ", identifier " + identifier + ", sequence "
                    + sequence + " or data length " + dataLength + " does not fit its field");
        }
        if (offset < 0 || offset > buf.byteSize() - HEADER_LENGTH - dataLength) {
            throw new IndexOutOfBoundsException("ICMP echo needs " + (HEADER_LENGTH + dataLength) + " octets at offset "
                    + offset + " of a " + buf.byteSize() + "-octet buffer");
        }
        Wire.put8(buf, offset, type);
        Wire.put8(buf, offset + 1, 0);
        Wire.put16(buf, offset + 2, 0);
        Wire.put16(buf, offset + 4, identifier);
        Wire.put16(buf, offset + 6, sequence);
    }

    /**
     * Checks an ICMP message of {@code length} octets: at least the 4-octet ICMP header, and its
     * checksum. Any ICMP type passes; {@link #type} says which.
     *
     * @throws DecodeException for a truncated message or a wrong checksum
     */
    public static void validateIpv4(MemorySegment buf, long offset, int length) throws DecodeException {
        if (length < 4) {
            throw new DecodeException("ICMP header", offset, "truncated: needs 4 octets, " + Math.max(0, length)
                    + " available");
        }
        Wire.require(buf, offset, length, "ICMP message");
        long sum = InternetChecksum.sum(buf, offset, length);
        check(buf, offset, sum, "ICMP checksum");
    }

    /**
     * Checks the ICMPv6 message of {@code length} octets behind the IPv6 header at
     * {@code ipv6Offset}: at least 4 octets, and the checksum with the pseudo-header.
     *
     * @throws DecodeException for a truncated message or a wrong checksum
     */
    public static void validateIpv6(MemorySegment buf, long ipv6Offset, int length) throws DecodeException {
        long offset = ipv6Offset + Ipv6Header.LENGTH;
        if (length < 4) {
            throw new DecodeException("ICMPv6 header", offset, "truncated: needs 4 octets, " + Math.max(0, length)
                    + " available");
        }
        Wire.require(buf, ipv6Offset, Ipv6Header.LENGTH + (long) length, "ICMPv6 message");
        long sum = Ipv6Header.pseudoHeaderSum(buf, ipv6Offset, length, Ipv6Header.NEXT_HEADER_ICMPV6)
                + InternetChecksum.sum(buf, offset, length);
        check(buf, offset, sum, "ICMPv6 checksum");
    }

    private static void check(MemorySegment buf, long offset, long sum, String field) throws DecodeException {
        if (InternetChecksum.fold(sum) != 0xFFFF) {
            int stored = Wire.u16(buf, offset + 2);
            throw new DecodeException(field, offset + 2, String.format("is 0x%04x, expected 0x%04x", stored,
                    InternetChecksum.complement(sum - stored)));
        }
    }

    /**
     * Whether the validated message of {@code length} octets is long enough to be an echo (8 octets).
     */
    public static boolean isEchoLength(int length) {
        return length >= HEADER_LENGTH;
    }

    public static int type(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "ICMP echo header");
        return Wire.u8(buf, offset);
    }

    public static int code(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "ICMP echo header");
        return Wire.u8(buf, offset + 1);
    }

    public static int identifier(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "ICMP echo header");
        return Wire.u16(buf, offset + 4);
    }

    public static int sequence(MemorySegment buf, long offset) {
        Wire.check(buf, offset, HEADER_LENGTH, "ICMP echo header");
        return Wire.u16(buf, offset + 6);
    }
}
