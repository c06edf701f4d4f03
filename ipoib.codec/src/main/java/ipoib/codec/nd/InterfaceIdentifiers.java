package ipoib.codec.nd;

import ipoib.api.Guid;
import ipoib.api.Lid;
import java.net.Inet6Address;

/**
 * IPv6 interface identifiers and addresses of an IPoIB interface (RFC 4391 §8 and §8.1, with
 * the address forms of RFC 4291).
 *
 * <p><b>From the port GUID</b> (§8, the RECOMMENDED source): the interface identifier must be in
 * modified EUI-64 form. §8 says to determine whether the GUID already is a modified EUI-64,
 * recognised by its "u" bit having been toggled, leave it alone if so, and toggle the u bit
 * otherwise. A manufacturer's EUI-64 is universally administered, so its u bit is 0 and the
 * toggled (modified) form has it 1; {@link #isModifiedEui64} therefore takes a set u bit as the
 * mark of a modified identifier. The result is that the u bit of the identifier is always set,
 * and a GUID whose u bit is already set is used unchanged (Linux's IPv6 address configuration
 * for InfiniBand interfaces, which sets the bit, derives the same identifier).
 *
 * <p><b>From a LID</b> (§8 item 2, only when the IPoIB link lies within one IB subnet): §8 gives
 * no bit layout, so the rule of RFC 4291 Appendix A for tokens that are not globally unique
 * applies: the 16-bit LID is appended to zeros, which leaves the u bit 0 (local scope), giving
 * {@code ::LLLL} in the low 64 bits.
 */
public final class InterfaceIdentifiers {
    private InterfaceIdentifiers() {}

    /** The "u" (universal/local) bit of a 64-bit identifier: bit 1 of its first octet. */
    public static final long U_BIT = 0x0200_0000_0000_0000L;
    /** The link-local prefix fe80::/64 (RFC 4291 §2.5.6). */
    public static final long LINK_LOCAL_PREFIX = 0xFE80_0000_0000_0000L;

    /** Whether §8 counts this GUID as a modified EUI-64 already: its u bit is set. */
    public static boolean isModifiedEui64(Guid guid) {
        return (guid.value() & U_BIT) != 0;
    }

    /**
     * The interface identifier from the port GUID (§8): the GUID itself if it is a modified
     * EUI-64 already, otherwise the GUID with the u bit toggled.
     */
    public static long fromGuid(Guid guid) {
        return isModifiedEui64(guid) ? guid.value() : guid.value() ^ U_BIT;
    }

    /**
     * The interface identifier from one of the port's LIDs (§8 item 2): zeros and the LID.
     *
     * @throws IllegalArgumentException if the LID is not a unicast LID (0x0001-0xBFFF): a port
     *     has no other LIDs of its own
     */
    public static long fromLid(Lid lid) {
        if (!lid.isUnicast()) {
            throw new IllegalArgumentException("LID " + lid + " is not a unicast port LID (0x0001-0xbfff)");
        }
        return lid.value();
    }

    /** The link-local address {@code fe80::/64} + {@code interfaceId} (§8.1, RFC 4291 §2.5.6). */
    public static Inet6Address linkLocal(long interfaceId) {
        return address(LINK_LOCAL_PREFIX, interfaceId);
    }

    /** The address of a 64-bit prefix and an interface identifier. */
    public static Inet6Address address(long prefix, long interfaceId) {
        return Ipv6.of(prefix, interfaceId);
    }

    /**
     * The solicited-node multicast address of {@code address}: {@code ff02::1:ff} followed by the
     * low 24 bits of the address (RFC 4291 §2.7.1), where Neighbor Solicitations for it go.
     */
    public static Inet6Address solicitedNodeMulticast(Inet6Address address) {
        byte[] a = Ipv6.requireNonNull("address", address).getAddress();
        byte[] m = new byte[Ipv6.ADDRESS_LENGTH];
        m[0] = (byte) 0xFF;
        m[1] = 0x02;
        m[11] = 0x01;
        m[12] = (byte) 0xFF;
        m[13] = a[13];
        m[14] = a[14];
        m[15] = a[15];
        return Ipv6.of(m);
    }

    /** Whether {@code address} is a solicited-node multicast address (ff02::1:ff00:0/104). */
    public static boolean isSolicitedNodeMulticast(Inet6Address address) {
        return Ipv6.isSolicitedNodeMulticast(Ipv6.requireNonNull("address", address));
    }
}
