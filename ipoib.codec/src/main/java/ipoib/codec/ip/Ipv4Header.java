package ipoib.codec.ip;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The IPv4 header (RFC 791 §3.1):
 *
 * <pre>
 *  octet 0      version 4, IHL (header length in 32-bit words, 5..15)
 *  octet 1      DSCP/ECN (type of service)
 *  octet 2..3   total length (header and data)
 *  octet 4..5   identification
 *  octet 6..7   flags (reserved, DF, MF) and fragment offset
 *  octet 8      TTL
 *  octet 9      protocol (1 ICMP, 17 UDP)
 *  octet 10..11 header checksum
 *  octet 12..15 source address
 *  octet 16..19 destination address
 *  octet 20..   options (IHL > 5), skipped on receive and never written
 * </pre>
 */
public final class Ipv4Header {
    private Ipv4Header() {}

    /** Length of a header without options, the only length written. */
    public static final int LENGTH = 20;
    /** Protocol number of ICMP. */
    public static final int PROTOCOL_ICMP = 1;
    /** Protocol number of IGMP (RFC 3376 §4). @since 1.1 */
    public static final int PROTOCOL_IGMP = 2;
    /** Protocol number of UDP. */
    public static final int PROTOCOL_UDP = 17;
    /** The largest total length. */
    public static final int MAX_TOTAL_LENGTH = 0xFFFF;

    private static final int DONT_FRAGMENT = 0x4000;
    private static final int MORE_FRAGMENTS = 0x2000;
    private static final int OFFSET_MASK = 0x1FFF;

    /**
     * Writes a 20-octet header with the checksum.
     *
     * @param totalLength header and data, 20..65535
     * @param dontFragment the DF flag
     * @return {@link #LENGTH}
     * @throws IllegalArgumentException for a total length, TTL or protocol outside its field
     * @throws IndexOutOfBoundsException when 20 octets do not fit at {@code offset}
     */
    public static int write(MemorySegment buf, long offset, int tos, int totalLength, int identification,
                            boolean dontFragment, int ttl, int protocol, int source, int destination) {
        if (totalLength < LENGTH || totalLength > MAX_TOTAL_LENGTH) {
            throw new IllegalArgumentException("IPv4 total length " + totalLength + " is outside 20..65535");
        }
        if (ttl < 0 || ttl > 255 || protocol < 0 || protocol > 255 || tos < 0 || tos > 255) {
            throw new IllegalArgumentException("IPv4 TTL " + ttl + ", protocol " + protocol + " or TOS " + tos
                    + " does not fit one octet");
        }
        if (offset < 0 || offset > buf.byteSize() - LENGTH) {
            throw new IndexOutOfBoundsException("IPv4 header needs 20 octets at offset " + offset + " of a "
                    + buf.byteSize() + "-octet buffer");
        }
        int flags = dontFragment ? DONT_FRAGMENT : 0;
        identification &= 0xFFFF;
        // The checksum from the values, not read back from the octets just stored: a wide load of
        // narrow stores still in the store buffer stalls (store forwarding fails).
        int checksum = InternetChecksum.complement((0x4500 | tos) + totalLength + identification + flags
                + (ttl << 8 | protocol) + InternetChecksum.sum32(source) + InternetChecksum.sum32(destination));
        Wire.put64(buf, offset, (long) (0x4500 | tos) << 48 | (long) totalLength << 32 | (long) identification << 16
                | flags);
        Wire.put32(buf, offset + 8, ttl << 24 | protocol << 16 | checksum);
        Wire.put32(buf, offset + 12, source);
        Wire.put32(buf, offset + 16, destination);
        return LENGTH;
    }

    /**
     * Checks the header at {@code offset} of a packet of {@code length} octets: version 4, a
     * header length of 20..60 within the packet, a total length that covers the header and fits
     * the packet (octets beyond it are padding), and the header checksum.
     *
     * @return the header length in octets
     * @throws DecodeException for anything else
     */
    public static int validate(MemorySegment buf, long offset, long length) throws DecodeException {
        if (length < LENGTH) {
            throw new DecodeException("IPv4 header", offset, "truncated: needs 20 octets, " + Math.max(0, length)
                    + " available");
        }
        Wire.require(buf, offset, length, "IPv4 packet");
        int first = Wire.u8(buf, offset);
        if ((first >>> 4) != 4) {
            throw new DecodeException("IPv4 version", offset, "is " + (first >>> 4) + ", expected 4");
        }
        int headerLength = (first & 0xF) * 4;
        if (headerLength < LENGTH) {
            throw new DecodeException("IPv4 header length", offset, "is " + headerLength + " octets, at least 20");
        }
        if (headerLength > length) {
            throw new DecodeException("IPv4 header length", offset, "is " + headerLength + " octets but only " + length
                    + " are there");
        }
        int totalLength = Wire.u16(buf, offset + 2);
        if (totalLength < headerLength || totalLength > length) {
            throw new DecodeException("IPv4 total length", offset + 2, "is " + totalLength + ", expected "
                    + headerLength + ".." + length + " (header length.." + "octets received)");
        }
        if (InternetChecksum.fold(InternetChecksum.sum(buf, offset, headerLength)) != 0xFFFF) {
            int stored = Wire.u16(buf, offset + 10);
            long sum = InternetChecksum.sum(buf, offset, headerLength) - stored;
            throw new DecodeException("IPv4 header checksum", offset + 10, String.format("is 0x%04x, expected 0x%04x",
                    stored, InternetChecksum.complement(sum)));
        }
        return headerLength;
    }

    public static int headerLength(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return (Wire.u8(buf, offset) & 0xF) * 4;
    }

    public static int tos(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u8(buf, offset + 1);
    }

    public static int totalLength(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u16(buf, offset + 2);
    }

    public static int identification(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u16(buf, offset + 4);
    }

    /** Whether the packet is a fragment: MF set or a non-zero fragment offset. */
    public static boolean isFragment(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return (Wire.u16(buf, offset + 6) & (MORE_FRAGMENTS | OFFSET_MASK)) != 0;
    }

    public static int ttl(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u8(buf, offset + 8);
    }

    public static int protocol(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u8(buf, offset + 9);
    }

    public static int source(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u32(buf, offset + 12);
    }

    public static int destination(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv4 header");
        return Wire.u32(buf, offset + 16);
    }

    /** The unfolded sum of the UDP/TCP pseudo-header (RFC 768): addresses, protocol, length. */
    public static long pseudoHeaderSum(int source, int destination, int protocol, int length) {
        return InternetChecksum.sum32(source) + InternetChecksum.sum32(destination) + protocol + length;
    }

    /** Dotted text of an {@code int} address, for messages. */
    public static String text(int address) {
        return (address >>> 24) + "." + (address >>> 16 & 0xFF) + "." + (address >>> 8 & 0xFF) + "." + (address & 0xFF);
    }
}
