package ipoib.codec.mcast;

import ipoib.api.Mgid;
import ipoib.api.PKey;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The IPoIB multicast mapping of RFC 4391 §4 (Figure 1):
 *
 * <pre>
 *  | 0xFF | flags 0001 | scope | signature (16) | P_Key (16) | group ID (80) |
 * </pre>
 *
 * <ul>
 * <li>flags: T set, nothing else (§4: IPoIB MGIDs are transient);
 * <li>scope: that of the link's broadcast-GID (§4), {@link #DEFAULT_SCOPE} unless configured
 *     otherwise (§4.1);
 * <li>signature: {@link #SIGNATURE_IPV4} or {@link #SIGNATURE_IPV6};
 * <li>P_Key: from a P_Key, the link's P_Key with the full-membership bit set (§4.1); from a
 *     supplied broadcast-GID, its P_Key octets as they are (Linux's {@code ip_ib_mc_map}: the
 *     broadcast-GID already carries the link's P_Key as the link joined it);
 * <li>group ID: for IPv6 the low 80 bits of the group address; for IPv4 the low 28 bits of the
 *     group address in the low 28 bits, all other bits zero;
 * <li>the IPv4 limited broadcast 255.255.255.255 maps to the broadcast-GID (Figure 2): 48 zero
 *     bits and 32 one bits as the group ID.
 * </ul>
 *
 * <p>The methods with {@code int} P_Keys take any 16-bit value, as the mapping does not judge
 * the partition (§4's own example uses P_Key 0x8000, which IBA does not let a port hold); the
 * {@link PKey} overloads are for links. Mapping back, the IPv4 group is fully recoverable (its
 * top four bits are always 1110), the IPv6 group only in its low 80 bits.
 */
public final class MulticastMapping {
    private MulticastMapping() {}

    /** The IPoIB signature of IPv4 MGIDs. */
    public static final int SIGNATURE_IPV4 = 0x401B;
    /** The IPoIB signature of IPv6 MGIDs. */
    public static final int SIGNATURE_IPV6 = 0x601B;
    /** The recommended scope of the broadcast-GID, link-local (§4.1). */
    public static final int DEFAULT_SCOPE = Mgid.SCOPE_LINK_LOCAL;
    /** The IPv4 limited broadcast address 255.255.255.255 as an {@code int}. */
    public static final int IPV4_LIMITED_BROADCAST = 0xFFFF_FFFF;

    private static final long IPV4_GROUP_MASK = 0x0FFF_FFFFL;
    private static final long BROADCAST_GROUP_ID = 0xFFFF_FFFFL;

    /** The address family an IPoIB MGID maps. */
    public enum Family {
        IPV4,
        IPV6
    }

    // ---------------------------------------------------------------- broadcast-GID

    /** The broadcast-GID of a link with P_Key {@code pKey} and link-local scope (§4, Figure 2). */
    public static Mgid broadcastGid(PKey pKey) {
        return broadcastGid(pKey, DEFAULT_SCOPE);
    }

    /** The broadcast-GID of a link with P_Key {@code pKey} and the given scope (§4, Figure 2). */
    public static Mgid broadcastGid(PKey pKey, int scope) {
        return broadcastGid(requirePKey(pKey).value(), scope);
    }

    /**
     * The broadcast-GID from a raw 16-bit P_Key (full-membership bit set in the result).
     *
     * @throws IllegalArgumentException if {@code pKey} exceeds 16 bits or {@code scope} 4 bits
     */
    public static Mgid broadcastGid(int pKey, int scope) {
        return Mgid.of(prefix(SIGNATURE_IPV4, pKey, scope, 0), BROADCAST_GROUP_ID);
    }

    // ---------------------------------------------------------------- IPv4

    /**
     * The MGID of an IPv4 group on the link whose broadcast-GID is {@code broadcastGid}: its
     * P_Key and scope are used (§4: all MGIDs of a link use the broadcast-GID's scope).
     *
     * @throws IllegalArgumentException if {@code group} is not multicast (224.0.0.0/4) or the
     *     limited broadcast, or {@code broadcastGid} is not an IPoIB broadcast-GID
     */
    public static Mgid ipv4(Inet4Address group, Mgid broadcastGid) {
        requireBroadcastGid(broadcastGid);
        int bits = ipv4Bits(group);
        if (bits == IPV4_LIMITED_BROADCAST) {
            return broadcastGid;
        }
        Mgid forced = ipv4(bits, pKey(broadcastGid), broadcastGid.scope());
        return withPKeyOctets(forced, broadcastGid);
    }

    /**
     * The MGID with the P_Key octets of the broadcast-GID, as they are: Linux's
     * {@code ip_ib_mc_map} and {@code ipv6_ib_mc_map} (include/net/ip.h, include/net/if_inet6.h)
     * copy octets 8-9 of the broadcast address without touching the full-membership bit.
     */
    private static Mgid withPKeyOctets(Mgid mapped, Mgid broadcastGid) {
        long pkeyField = 0xFFFFL << 16;
        long prefix = mapped.gid().prefix() & ~pkeyField | broadcastGid.gid().prefix() & pkeyField;
        return Mgid.of(prefix, mapped.gid().interfaceId());
    }

    /**
     * The MGID of an IPv4 group on a link with P_Key {@code pKey} and broadcast-GID scope
     * {@code scope}.
     *
     * @throws IllegalArgumentException if {@code group} is neither multicast (224.0.0.0/4) nor
     *     the limited broadcast, or {@code scope} exceeds 4 bits
     */
    public static Mgid ipv4(Inet4Address group, PKey pKey, int scope) {
        return ipv4(ipv4Bits(group), requirePKey(pKey).value(), scope);
    }

    /**
     * The MGID of an IPv4 group given as an {@code int} ({@code 224.0.0.2} is
     * {@code 0xE0000002}) and a raw 16-bit P_Key.
     *
     * @throws IllegalArgumentException if {@code group} is neither multicast nor the limited
     *     broadcast, {@code pKey} exceeds 16 bits or {@code scope} 4 bits
     */
    public static Mgid ipv4(int group, int pKey, int scope) {
        if (group == IPV4_LIMITED_BROADCAST) {
            return broadcastGid(pKey, scope);
        }
        if ((group >>> 28) != 0xE) {
            throw new IllegalArgumentException("IPv4 address " + dotted(group)
                    + " is not a multicast group (224.0.0.0/4) or 255.255.255.255, so it has no MGID");
        }
        return Mgid.of(prefix(SIGNATURE_IPV4, pKey, scope, 0), group & IPV4_GROUP_MASK);
    }

    // ---------------------------------------------------------------- IPv6

    /**
     * The MGID of an IPv6 group on the link whose broadcast-GID is {@code broadcastGid}.
     *
     * @throws IllegalArgumentException if {@code group} is not multicast (ff00::/8) or
     *     {@code broadcastGid} is not an IPoIB broadcast-GID
     */
    public static Mgid ipv6(Inet6Address group, Mgid broadcastGid) {
        requireBroadcastGid(broadcastGid);
        return withPKeyOctets(ipv6(requireGroup(group).getAddress(), pKey(broadcastGid), broadcastGid.scope()),
                broadcastGid);
    }

    /**
     * The MGID of an IPv6 group on a link with P_Key {@code pKey} and broadcast-GID scope
     * {@code scope}.
     *
     * @throws IllegalArgumentException if {@code group} is not multicast or {@code scope}
     *     exceeds 4 bits
     */
    public static Mgid ipv6(Inet6Address group, PKey pKey, int scope) {
        return ipv6(requireGroup(group).getAddress(), requirePKey(pKey).value(), scope);
    }

    /**
     * The MGID of an IPv6 group given as 16 octets and a raw 16-bit P_Key.
     *
     * @throws IllegalArgumentException if {@code group} is not 16 octets of a multicast
     *     address, {@code pKey} exceeds 16 bits or {@code scope} 4 bits
     */
    public static Mgid ipv6(byte[] group, int pKey, int scope) {
        if (group == null || group.length != 16) {
            throw new IllegalArgumentException("an IPv6 group address has 16 octets, got "
                    + (group == null ? "null" : group.length));
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < 8; i++) {
            high = high << 8 | (group[i] & 0xFF);
            low = low << 8 | (group[i + 8] & 0xFF);
        }
        return ipv6(high, low, pKey, scope);
    }

    /**
     * The MGID of an IPv6 group given as its upper and lower 64 bits and a raw 16-bit P_Key.
     *
     * @throws IllegalArgumentException if the group is not multicast (ff00::/8), {@code pKey}
     *     exceeds 16 bits or {@code scope} 4 bits
     */
    public static Mgid ipv6(long groupHigh, long groupLow, int pKey, int scope) {
        if ((groupHigh >>> 56) != 0xFF) {
            throw new IllegalArgumentException(String.format(
                    "IPv6 address %016x%016x is not a multicast group (ff00::/8), so it has no MGID", groupHigh, groupLow));
        }
        return Mgid.of(prefix(SIGNATURE_IPV6, pKey, scope, (int) groupHigh & 0xFFFF), groupLow);
    }

    // ---------------------------------------------------------------- reverse

    /**
     * Whether {@code mgid} has the form of an IPoIB MGID: 0xFF, flags exactly T, an IPoIB
     * signature, and for IPv4 either the broadcast-GID's group ID or a 28-bit group ID.
     */
    public static boolean isIpoibMgid(Mgid mgid) {
        requireNonNull(mgid);
        long prefix = mgid.gid().prefix();
        if ((prefix >>> 52) != 0xFF1) {
            return false;
        }
        int signature = (int) (prefix >>> 32) & 0xFFFF;
        if (signature == SIGNATURE_IPV6) {
            return true;
        }
        if (signature != SIGNATURE_IPV4 || (prefix & 0xFFFF) != 0) {
            return false;
        }
        long groupId = mgid.gid().interfaceId();
        return groupId == BROADCAST_GROUP_ID || (groupId & ~IPV4_GROUP_MASK) == 0;
    }

    /** Whether {@code mgid} is an IPoIB broadcast-GID (Figure 2), of any P_Key and scope. */
    public static boolean isBroadcastGid(Mgid mgid) {
        requireNonNull(mgid);
        long prefix = mgid.gid().prefix();
        return (prefix >>> 52) == 0xFF1 && ((int) (prefix >>> 32) & 0xFFFF) == SIGNATURE_IPV4
                && (prefix & 0xFFFF) == 0 && mgid.gid().interfaceId() == BROADCAST_GROUP_ID;
    }

    /**
     * The family an IPoIB MGID maps.
     *
     * @throws IllegalArgumentException if it is not an IPoIB MGID
     */
    public static Family family(Mgid mgid) {
        requireIpoib(mgid);
        return ((int) (mgid.gid().prefix() >>> 32) & 0xFFFF) == SIGNATURE_IPV4 ? Family.IPV4 : Family.IPV6;
    }

    /**
     * The scope nibble of an IPoIB MGID.
     *
     * @throws IllegalArgumentException if it is not an IPoIB MGID
     */
    public static int scope(Mgid mgid) {
        requireIpoib(mgid);
        return mgid.scope();
    }

    /**
     * The 16-bit P_Key of an IPoIB MGID, as carried (normally with the full-membership bit).
     *
     * @throws IllegalArgumentException if it is not an IPoIB MGID
     */
    public static int pKey(Mgid mgid) {
        requireIpoib(mgid);
        return (int) (mgid.gid().prefix() >>> 16) & 0xFFFF;
    }

    /**
     * The low 28 bits of the IPv4 group an IPv4 IPoIB MGID maps.
     *
     * @throws IllegalArgumentException for anything but an IPv4 IPoIB MGID other than the
     *     broadcast-GID
     */
    public static int ipv4GroupBits(Mgid mgid) {
        if (family(mgid) != Family.IPV4 || isBroadcastGid(mgid)) {
            throw new IllegalArgumentException("MGID " + mgid + " does not map an IPv4 multicast group");
        }
        return (int) mgid.gid().interfaceId();
    }

    /**
     * The IPv4 address an IPv4 IPoIB MGID maps: the multicast group (224.0.0.0/4 and the 28
     * bits) or, for the broadcast-GID, 255.255.255.255.
     *
     * @throws IllegalArgumentException if {@code mgid} is not an IPv4 IPoIB MGID
     */
    public static Inet4Address ipv4Group(Mgid mgid) {
        if (family(mgid) != Family.IPV4) {
            throw new IllegalArgumentException("MGID " + mgid + " maps IPv6, not IPv4");
        }
        int group = isBroadcastGid(mgid) ? IPV4_LIMITED_BROADCAST : 0xE000_0000 | (int) mgid.gid().interfaceId();
        byte[] b = {(byte) (group >>> 24), (byte) (group >>> 16), (byte) (group >>> 8), (byte) group};
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError("four octets are always an IPv4 address", e);
        }
    }

    /**
     * The low 80 bits of the IPv6 group an IPv6 IPoIB MGID maps, as 10 octets (a new array);
     * they are octets 6..15 of the group address.
     *
     * @throws IllegalArgumentException if {@code mgid} is not an IPv6 IPoIB MGID
     */
    public static byte[] ipv6GroupBits(Mgid mgid) {
        if (family(mgid) != Family.IPV6) {
            throw new IllegalArgumentException("MGID " + mgid + " maps IPv4, not IPv6");
        }
        byte[] out = new byte[10];
        int high = (int) mgid.gid().prefix() & 0xFFFF;
        out[0] = (byte) (high >>> 8);
        out[1] = (byte) high;
        long low = mgid.gid().interfaceId();
        for (int i = 0; i < 8; i++) {
            out[2 + i] = (byte) (low >>> (56 - 8 * i));
        }
        return out;
    }

    // ---------------------------------------------------------------- helpers

    private static long prefix(int signature, int pKey, int scope, int groupHigh16) {
        if (pKey < 0 || pKey > 0xFFFF) {
            throw new IllegalArgumentException(String.format("P_Key 0x%x does not fit 16 bits", pKey));
        }
        if (scope < 0 || scope > 0xF) {
            throw new IllegalArgumentException("MGID scope " + scope + " does not fit 4 bits (0..15)");
        }
        int fullPKey = pKey | PKey.FULL_MEMBER_BIT;
        return 0xFFL << 56 | (long) Mgid.FLAG_TRANSIENT << 52 | (long) scope << 48 | (long) signature << 32
                | (long) fullPKey << 16 | groupHigh16;
    }

    private static int ipv4Bits(Inet4Address group) {
        if (group == null) {
            throw new IllegalArgumentException("IPv4 group must not be null");
        }
        byte[] b = group.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    private static Inet6Address requireGroup(Inet6Address group) {
        if (group == null) {
            throw new IllegalArgumentException("IPv6 group must not be null");
        }
        return group;
    }

    private static PKey requirePKey(PKey pKey) {
        if (pKey == null) {
            throw new IllegalArgumentException("P_Key must not be null");
        }
        return pKey;
    }

    private static void requireNonNull(Mgid mgid) {
        if (mgid == null) {
            throw new IllegalArgumentException("MGID must not be null");
        }
    }

    private static void requireIpoib(Mgid mgid) {
        if (!isIpoibMgid(mgid)) {
            throw new IllegalArgumentException("MGID " + mgid
                    + " is not an IPoIB MGID (ff1s:401b:pppp:: + 28 bits, the broadcast-GID, or ff1s:601b:pppp: + 80 bits)");
        }
    }

    private static void requireBroadcastGid(Mgid broadcastGid) {
        if (broadcastGid == null || !isBroadcastGid(broadcastGid)) {
            throw new IllegalArgumentException("MGID " + broadcastGid
                    + " is not an IPoIB broadcast-GID (ff1s:401b:pppp::ffff:ffff)");
        }
    }

    private static String dotted(int a) {
        return (a >>> 24) + "." + (a >>> 16 & 0xFF) + "." + (a >>> 8 & 0xFF) + "." + (a & 0xFF);
    }
}
