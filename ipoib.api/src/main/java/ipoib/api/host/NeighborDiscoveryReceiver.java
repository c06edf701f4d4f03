package ipoib.api.host;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A whiteboard service receiving the Neighbor Discovery messages (RFC 4861 §4: ICMPv6 types
 * 133..137) that arrive on any IPoIB link. The host layer owns the IPv6 EtherType: it validates
 * the IPv6 header once, classifies the packet once, and hands these message types here; every
 * other IPv6 packet stays with the host. Without a receiver, such packets are counted
 * ({@code rx_nd_no_receiver}) and dropped.
 *
 * <p>Called on the link's receive thread: do not block, do not keep the frame (the rules of
 * {@link ipoib.api.link.FrameHandler}). The frame's payload starts at the IPv6 header; the
 * receiver validates the ICMPv6 message itself (checksum, hop limit 255, options).
 */
@ConsumerType
@FunctionalInterface
public interface NeighborDiscoveryReceiver {

    /** ICMPv6 type of a Router Solicitation. */
    int ROUTER_SOLICITATION = 133;
    /** ICMPv6 type of a Router Advertisement. */
    int ROUTER_ADVERTISEMENT = 134;
    /** ICMPv6 type of a Neighbor Solicitation. */
    int NEIGHBOR_SOLICITATION = 135;
    /** ICMPv6 type of a Neighbor Advertisement. */
    int NEIGHBOR_ADVERTISEMENT = 136;
    /** ICMPv6 type of a Redirect. */
    int REDIRECT = 137;

    /** Whether an ICMPv6 type is one of the Neighbor Discovery messages handed to this service. */
    static boolean isNeighborDiscovery(int icmpv6Type) {
        return icmpv6Type >= ROUTER_SOLICITATION && icmpv6Type <= REDIRECT;
    }

    /**
     * One Neighbor Discovery message.
     *
     * @param link the link it arrived on
     * @param frame the frame; its payload is the IPv6 packet (header validated, next header 58)
     * @param icmpv6Type the ICMPv6 type, 133..137
     */
    void onNeighborDiscovery(IpoibLink link, ReceivedFrame frame, int icmpv6Type);
}
