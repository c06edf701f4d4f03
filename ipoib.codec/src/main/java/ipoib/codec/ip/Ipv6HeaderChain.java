package ipoib.codec.ip;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Walks an IPv6 packet's extension-header chain (RFC 8200 §4) to its upper-layer header, so that
 * a packet is classified by what it carries, whatever headers come first (the netdev bridge does). Allocation-free:
 * the outcome is one int ({@link #protocol}, {@link #upperOffset}, {@link #fragmented}) or a
 * negative verdict.
 *
 * <p>The headers walked are those Linux walks in {@code ipv6_skip_exthdr}
 * (net/ipv6/exthdrs_core.c): Hop-by-Hop Options, Routing, Fragment, Authentication and Destination
 * Options; any other next-header value is the upper layer (ESP and No Next Header included: nothing
 * after them can be read). Refused as {@link #MALFORMED}:
 * <ul>
 *   <li>a chain that runs past the packet, or a first fragment that does not hold the whole chain
 *       up to the upper-layer header (RFC 8200 §4.5, RFC 7112 §5);</li>
 *   <li>a Hop-by-Hop Options header anywhere but directly after the IPv6 header (RFC 8200 §4.1,
 *       §4.3);</li>
 *   <li>more than {@value #MAX_HEADERS} extension headers, or a chain longer than
 *       {@value #MAX_CHAIN_LENGTH} octets: RFC 8200 §4.1 recommends six kinds with Destination
 *       Options at most twice, and a chain that does not fit the minimum link MTU of 1 280 octets
 *       (RFC 8200 §5) with its IPv6 and Fragment headers cannot be in a first fragment on every
 *       path (RFC 7112).</li>
 * </ul>
 * A fragment other than the first carries no upper-layer header ({@link #LATER_FRAGMENT}): it cannot
 * be classified, and need not be, since its first fragment was.
 *
 * @since 1.1
 */
public final class Ipv6HeaderChain {
    public static final int HOP_BY_HOP = 0;
    public static final int ROUTING = 43;
    public static final int FRAGMENT = 44;
    public static final int AUTHENTICATION = 51;
    public static final int ICMPV6 = 58;
    public static final int DESTINATION_OPTIONS = 60;
    /** The most extension headers a packet may have here. */
    public static final int MAX_HEADERS = 8;
    /** The most octets of extension headers: the 1 280-octet minimum MTU less the IPv6 and Fragment headers. */
    public static final int MAX_CHAIN_LENGTH = 1280 - 40 - 8;
    /** The chain cannot be parsed (see the class comment). */
    public static final int MALFORMED = -1;
    /** A fragment other than the first: no upper-layer header in it. */
    public static final int LATER_FRAGMENT = -2;

    private static final int IPV6_HEADER = 40;
    private static final int FRAGMENTED_BIT = 1 << 24;
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private Ipv6HeaderChain() {}

    /**
     * The IPv6 packet of {@code length} octets at {@code offset} in {@code b}: its upper-layer
     * protocol and that header's offset from the packet's start (read them with {@link #protocol}
     * and {@link #upperOffset}), or {@link #MALFORMED}, or {@link #LATER_FRAGMENT}.
     *
     * @throws IllegalArgumentException when the packet's range does not lie in {@code b} (the
     *         caller's error; what the packet holds is judged by the result, never thrown)
     */
    public static int walk(MemorySegment b, long offset, int length) {
        if (offset < 0 || length < 0 || offset > b.byteSize() - length) {
            throw new IllegalArgumentException("Ipv6HeaderChain.walk: " + length + " octets at offset " + offset
                    + " do not lie in a segment of " + b.byteSize());
        }
        if (length < IPV6_HEADER || (u8(b, offset) >>> 4) != 6) {
            return MALFORMED;
        }
        int next = u8(b, offset + 6);
        int at = IPV6_HEADER;
        int headers = 0;
        boolean fragmented = false;
        while (isExtension(next)) {
            if ((next == HOP_BY_HOP && headers > 0) || ++headers > MAX_HEADERS || at + 8 > length) {
                return MALFORMED;
            }
            int following = u8(b, offset + at);
            int size;
            if (next == FRAGMENT) {
                int offsetAndFlags = Short.toUnsignedInt(b.get(SHORT_BE, offset + at + 2));
                if ((offsetAndFlags & ~0x7) != 0) {
                    return LATER_FRAGMENT; // RFC 8200 §4.5: fragment offset in 8-octet units, bits 15..3
                }
                fragmented = true;
                size = 8;
            } else if (next == AUTHENTICATION) {
                size = (u8(b, offset + at + 1) + 2) * 4; // RFC 4302 §2.2: in 4-octet units, minus 2
            } else {
                size = (u8(b, offset + at + 1) + 1) * 8; // RFC 8200 §4.3: in 8-octet units, not counting the first
            }
            at += size;
            if (at > length || at - IPV6_HEADER > MAX_CHAIN_LENGTH) {
                return MALFORMED;
            }
            next = following;
        }
        return (fragmented ? FRAGMENTED_BIT : 0) | at << 8 | next;
    }

    private static boolean isExtension(int next) {
        return next == HOP_BY_HOP || next == ROUTING || next == FRAGMENT || next == AUTHENTICATION
                || next == DESTINATION_OPTIONS;
    }

    /** The upper-layer protocol of a successful {@link #walk}. */
    public static int protocol(int walk) {
        return walk & 0xFF;
    }

    /** The offset of the upper-layer header from the packet's start, of a successful {@link #walk}. */
    public static int upperOffset(int walk) {
        return (walk >>> 8) & 0xFFFF;
    }

    /** Whether a successful {@link #walk} went through a Fragment header (the first fragment, or an atomic one). */
    public static boolean fragmented(int walk) {
        return (walk & FRAGMENTED_BIT) != 0;
    }

    private static int u8(MemorySegment b, long at) {
        return Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, at));
    }
}
