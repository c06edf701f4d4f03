package ipoib.api.resolve;

import java.util.function.IntPredicate;

/**
 * What an on-link next hop is, which decides how an IP packet leaves on an IPoIB link: a
 * broadcast goes to the link's broadcast group (RFC 4391 §5), a multicast address to the IB
 * group it maps to (§4, the egress decision of §10, the multicast manager's), a unicast address
 * to its neighbour through the family's {@link NeighbourResolver} (§9). Every sender on a link
 * (the host layer, a Linux device bridged to the link) decides with {@link #of}, so that the
 * same destination leaves the same way whoever sends it.
 *
 * @since 1.3
 */
public enum NextHopKind {
    /** A neighbour, resolved by the family's {@link NeighbourResolver}. */
    UNICAST,
    /** The IPv4 limited broadcast or a subnet broadcast of the link's addresses: the broadcast group. */
    BROADCAST,
    /** An IPv4 (224.0.0.0/4) or IPv6 (ff00::/8) multicast group. */
    MULTICAST;

    /** The IPv4 limited broadcast address 255.255.255.255 (RFC 919 §7) in {@code int} form. */
    public static final int IPV4_LIMITED_BROADCAST = -1;

    /**
     * The kind of a next hop in {@link AddressBits} form. IPv4 multicast is 224.0.0.0/4 (RFC 1112
     * §4), IPv6 multicast ff00::/8 (RFC 4291 §2.7); IPv6 has no broadcast (RFC 4291 §2). Allocates
     * nothing.
     *
     * @param v6 whether the address is IPv6
     * @param high the upper 64 bits of an IPv6 address, 0 for IPv4
     * @param low the lower 64 bits of an IPv6 address, or the IPv4 address in its lower 32 bits
     * @param subnetBroadcast whether an IPv4 address ({@code int} form) is the subnet broadcast
     *     address of one of the link's IPv4 addresses (RFC 922); asked only for IPv4 unicast-range
     *     addresses other than the limited broadcast
     */
    public static NextHopKind of(boolean v6, long high, long low, IntPredicate subnetBroadcast) {
        if (v6) {
            return (high >>> 56) == 0xFF ? MULTICAST : UNICAST;
        }
        int address = (int) low;
        if (address == IPV4_LIMITED_BROADCAST) {
            return BROADCAST;
        }
        if ((address >>> 28) == 0xE) {
            return MULTICAST;
        }
        return subnetBroadcast.test(address) ? BROADCAST : UNICAST;
    }
}
