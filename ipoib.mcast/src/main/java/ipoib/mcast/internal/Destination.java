package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.codec.mcast.MulticastMapping;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * An IP group as a link sends to it: its MGID on the link (RFC 4391 §4, with the link's
 * broadcast-GID's P_Key and scope), its family, and whether its IP scope is beyond link-local,
 * the condition of §10's all-routers branch. Cached per link so that a send to a known group
 * allocates nothing.
 *
 * @param address the IP group
 * @param mgid its MGID on the link
 * @param ipv6 whether it is an IPv6 group
 * @param beyondLinkLocal whether its scope is wider than link-local
 */
record Destination(InetAddress address, Mgid mgid, boolean ipv6, boolean beyondLinkLocal) {

    /** The IPv4 all-routers group (RFC 1112 / IGMP). */
    static final InetAddress IPV4_ALL_ROUTERS = address(new byte[] {(byte) 224, 0, 0, 2});
    /** The IPv6 link-local all-routers group (RFC 4291 §2.7.1). */
    static final InetAddress IPV6_ALL_ROUTERS = address(new byte[] {(byte) 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});

    /**
     * The destination of an IP multicast group on a link with the given broadcast-GID.
     *
     * @throws IllegalArgumentException when the address is not a multicast group
     */
    static Destination of(InetAddress group, Mgid broadcastGid) {
        if (group instanceof Inet4Address v4) {
            if (!v4.isMulticastAddress()) {
                throw new IllegalArgumentException(text(group) + " is not an IPv4 multicast group (224.0.0.0/4)");
            }
            return new Destination(group, MulticastMapping.ipv4(v4, broadcastGid), false, beyondLinkLocal(group));
        }
        if (group instanceof Inet6Address v6) {
            if (!v6.isMulticastAddress()) {
                throw new IllegalArgumentException(text(group) + " is not an IPv6 multicast group (ff00::/8)");
            }
            return new Destination(group, MulticastMapping.ipv6(v6, broadcastGid), true, beyondLinkLocal(group));
        }
        throw new IllegalArgumentException("no IP group given");
    }

    /**
     * Whether a multicast group's scope is wider than link-local. IPv4: everything outside the
     * Local Network Control Block 224.0.0.0/24 (RFC 5771), which routers never forward. IPv6: a
     * scope nibble above 2 (RFC 4291 §2.7; 0 is reserved, 1 interface-local, 2 link-local).
     */
    static boolean beyondLinkLocal(InetAddress group) {
        byte[] a = group.getAddress();
        if (a.length == 4) {
            return !((a[0] & 0xFF) == 224 && a[1] == 0 && a[2] == 0);
        }
        return (a[1] & 0x0F) > Mgid.SCOPE_LINK_LOCAL;
    }

    /**
     * An IP address as text: dotted IPv4, and IPv6 in the canonical form of RFC 5952
     * ({@code ff05::1:3}, where {@link InetAddress#getHostAddress()} writes every zero group).
     */
    static String text(InetAddress address) {
        if (address == null) {
            return "-";
        }
        byte[] octets = address.getAddress();
        return octets.length == 16 ? ipoib.api.Gid.fromBytes(octets).toString() : address.getHostAddress();
    }

    /** The all-routers group of a family. */
    static InetAddress allRouters(boolean ipv6) {
        return ipv6 ? IPV6_ALL_ROUTERS : IPV4_ALL_ROUTERS;
    }

    private static InetAddress address(byte[] octets) {
        try {
            return InetAddress.getByAddress(octets);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError("a 4- or 16-octet address is always valid", e);
        }
    }
}
