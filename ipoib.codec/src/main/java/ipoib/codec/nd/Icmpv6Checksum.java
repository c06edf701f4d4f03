package ipoib.codec.nd;

import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The ICMPv6 checksum (RFC 4443 §2.3): the 16-bit one's complement of the one's complement sum
 * of the IPv6 pseudo-header (RFC 8200 §8.1: source, destination, 32-bit upper-layer length,
 * three zero octets, next header 58) and the ICMPv6 message.
 *
 * <p>Both methods take the offset of the IPv6 header, whose addresses they read, and expect the
 * ICMPv6 message right behind it. The caller has checked that the header and the message lie in
 * the segment (otherwise {@link IndexOutOfBoundsException}). Nothing allocates.
 */
public final class Icmpv6Checksum {
    private Icmpv6Checksum() {}

    static final int NEXT_HEADER_ICMPV6 = 58;
    private static final int SOURCE = 8;
    private static final int MESSAGE = 40;
    private static final int CHECKSUM = 2;

    /**
     * The checksum to store in the message: computed as if the checksum field held zero,
     * whatever it holds now.
     *
     * @param ipv6Offset offset of the IPv6 header
     * @param icmpLength length of the ICMPv6 message
     */
    public static int compute(MemorySegment buf, long ipv6Offset, int icmpLength) {
        long message = ipv6Offset + MESSAGE;
        long sum = sum(buf, ipv6Offset, icmpLength) - Wire.u16(buf, message + CHECKSUM);
        return ~fold(sum) & 0xFFFF;
    }

    /** Whether the checksum field of the message is right. */
    public static boolean isValid(MemorySegment buf, long ipv6Offset, int icmpLength) {
        return fold(sum(buf, ipv6Offset, icmpLength)) == 0xFFFF;
    }

    /** Sum of pseudo-header and message, checksum field included, not yet folded. */
    private static long sum(MemorySegment buf, long ipv6Offset, int icmpLength) {
        if (icmpLength < 4) {
            throw new IndexOutOfBoundsException("an ICMPv6 message has at least 4 octets, got " + icmpLength);
        }
        long sum = 0;
        for (int i = 0; i < 32; i += 2) {
            sum += Wire.u16(buf, ipv6Offset + SOURCE + i);
        }
        sum += (icmpLength >>> 16) + (icmpLength & 0xFFFF) + NEXT_HEADER_ICMPV6;
        long message = ipv6Offset + MESSAGE;
        int even = icmpLength & ~1;
        for (int i = 0; i < even; i += 2) {
            sum += Wire.u16(buf, message + i);
        }
        if (even != icmpLength) {
            sum += Wire.u8(buf, message + even) << 8;
        }
        return sum;
    }

    private static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }
}
