package ipoib.nd.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.mcast.MulticastService;
import ipoib.codec.nd.NeighborAdvertisement;
import java.net.Inet6Address;
import java.util.Optional;

/**
 * Unsolicited Neighbor Advertisements to all-nodes (RFC 4861 §7.2.6): neighbours with a stale
 * entry (our QPN changes with every reset, RFC 4391 §9.4; our LID with a port event) learn the new
 * address and query the path to us again at once.
 */
final class UnsolicitedAdvertisements {
    private final NdServices nd;

    UnsolicitedAdvertisements(NdServices nd) {
        this.nd = nd;
    }

    /** Advertises one address (it passed DAD). */
    void advertise(IpoibLink link, Inet6Address address) {
        LinkAddress self = link.address();
        MulticastService m = nd.multicast;
        if (self != null && m != null) {
            NeighborAdvertisement na = new NeighborAdvertisement(address, Memberships.ALL_NODES, false, false, true,
                    address, Optional.of(self));
            if (!m.send(link, Memberships.ALL_NODES, EtherType.IPV6, NdServices.encode(na)).isDrop()) {
                nd.counters.naOut.increment(link.name());
            }
        }
    }

    /** Advertises every usable (not tentative, not duplicate) address of a link. Control thread. */
    void advertiseAll(IpoibLink link) {
        InterfaceAddresses table = nd.addresses;
        if (table == null || link.state() != LinkState.UP) {
            return;
        }
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.ipv6() && a.state().usable() && a.address() instanceof Inet6Address v6) {
                advertise(link, v6);
            }
        }
    }
}
