package ipoib.host.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;

/**
 * The services that take a packet to its next hop: the neighbour resolver of each family and
 * the multicast manager. Each may be absent while its bundle is being updated.
 */
final class NextHops {
    volatile NeighbourResolver ipv4;
    volatile NeighbourResolver ipv6;
    volatile MulticastService multicast;

    NeighbourResolver resolver(boolean v6) {
        return v6 ? ipv6 : ipv4;
    }

    /** The IP MTU of a family on a link: the resolver's (ND may lower it by a Router Advertisement), else the link's. */
    int mtu(IpoibLink link, boolean v6) {
        NeighbourResolver r = resolver(v6);
        int m = r == null ? 0 : r.linkMtu(link.name());
        return m > 0 ? m : link.mtu();
    }
}
