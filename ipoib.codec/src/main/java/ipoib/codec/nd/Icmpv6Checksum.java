package ipoib.codec.nd;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The ICMPv6 checksum (RFC 4443 §2.3): the 16-bit one's complement of the one's complement sum
 * of the IPv6 pseudo-header (RFC 8200 §8.1: source, destination, 32-bit upper-layer length,
 * three zero octets, next header 58) and the ICMPv6 message.
 *
 * <p>Both methods take the offset of the IPv6 header, whose addresses they read, and expect the
 * ICMPv6 message right behind it. {@link #isValid} checks received bytes and throws
 * {@link DecodeException} when the header and the message do not lie in the segment;
 * {@link #compute} serves an encoder and throws {@link IndexOutOfBoundsException} (or
 * {@link IllegalArgumentException} for a length below 4). Nothing allocates.
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
     * @param icmpLength length of the ICMPv6 message, 4 or more
     * @throws IllegalArgumentException when {@code icmpLength} is below 4
     * @throws IndexOutOfBoundsException when the IPv6 header and the message do not lie in the segment
     */
    public static int compute(MemorySegment buf, long ipv6Offset, int icmpLength) {
        if (icmpLength < 4) {
            throw new IllegalArgumentException("an ICMPv6 message has at least 4 octets, got " + icmpLength);
        }
        Wire.check(buf, ipv6Offset, (long) MESSAGE + icmpLength, "IPv6 header and ICMPv6 message");
        long message = ipv6Offset + MESSAGE;
        long sum = sum(buf, ipv6Offset, icmpLength) - Wire.u16(buf, message + CHECKSUM);
        return ~fold(sum) & 0xFFFF;
    }

    /**
     * Whether the checksum field of the message is right.
     *
     * @throws DecodeException when {@code icmpLength} is below 4 or the IPv6 header and the message
     *                         do not lie in the segment
     */
    public static boolean isValid(MemorySegment buf, long ipv6Offset, int icmpLength) throws DecodeException {
        if (icmpLength < 4) {
            throw new DecodeException("ICMPv6 message", ipv6Offset + MESSAGE,
                    "has at least 4 octets, got " + icmpLength);
        }
        Wire.require(buf, ipv6Offset, (long) MESSAGE + icmpLength, "ICMPv6 message");
        return fold(sum(buf, ipv6Offset, icmpLength)) == 0xFFFF;
    }

    /** Sum of pseudo-header and message, checksum field included, not yet folded. */
    private static long sum(MemorySegment buf, long ipv6Offset, int icmpLength) {
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
