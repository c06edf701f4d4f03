package ipoib.codec.nd;

import java.net.Inet6Address;

/**
 * One Neighbor Discovery message of RFC 4861 §4 together with the addresses of the IPv6 packet
 * that carries it (they enter the ICMPv6 checksum and several validation rules).
 */
public sealed interface NdMessage
        permits RouterSolicitation, RouterAdvertisement, NeighborSolicitation, NeighborAdvertisement, Redirect {

    /** ICMPv6 type of a Router Solicitation. */
    int TYPE_ROUTER_SOLICITATION = 133;
    /** ICMPv6 type of a Router Advertisement. */
    int TYPE_ROUTER_ADVERTISEMENT = 134;
    /** ICMPv6 type of a Neighbor Solicitation. */
    int TYPE_NEIGHBOR_SOLICITATION = 135;
    /** ICMPv6 type of a Neighbor Advertisement. */
    int TYPE_NEIGHBOR_ADVERTISEMENT = 136;
    /** ICMPv6 type of a Redirect. */
    int TYPE_REDIRECT = 137;

    /** Source address of the IPv6 header. */
    Inet6Address source();

    /** Destination address of the IPv6 header. */
    Inet6Address destination();

    /** The ICMPv6 type of this message. */
    int icmpType();
}
