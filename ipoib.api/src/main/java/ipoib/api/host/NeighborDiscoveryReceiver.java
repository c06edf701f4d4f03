package ipoib.api.host;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A whiteboard service receiving the Neighbor Discovery messages (RFC 4861 §4: ICMPv6 types
 * 133..137) that arrive on any IPoIB link. The owner of a link's IPv6 EtherType hands these
 * message types here: the host layer (it validates the IPv6 header once, classifies the packet
 * once, and keeps every other IPv6 packet), or on a link bridged to a network device the bridge
 * (see {@link ipoib.api.link.FrameHandler#BRIDGE_PROPERTY}), which writes every other IPv6 packet
 * to the device. Without a receiver, such packets are counted ({@code rx_nd_no_receiver}) and
 * dropped.
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
