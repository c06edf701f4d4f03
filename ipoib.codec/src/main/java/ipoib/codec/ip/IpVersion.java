package ipoib.codec.ip;

import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The version field both IP headers start with (RFC 791 §3.1, RFC 8200 §3: the first four bits),
 * which tells which header follows when nothing else does (a packet read from a network device).
 *
 * @since 1.1
 */
public final class IpVersion {
    private IpVersion() {}

    /** The version of IPv4. */
    public static final int IPV4 = 4;
    /** The version of IPv6. */
    public static final int IPV6 = 6;

    /**
     * The version of the IP header at {@code offset}.
     *
     * @throws IndexOutOfBoundsException when no octet is at {@code offset}
     */
    public static int of(MemorySegment buf, long offset) {
        Wire.check(buf, offset, 1, "IP header");
        return Wire.u8(buf, offset) >>> 4;
    }
}
