package ipoib.nd.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.nd.NeighborAdvertisement;
import ipoib.codec.nd.NeighborSolicitation;
import ipoib.neighbour.LogLines;
import ipoib.neighbour.NeighbourEngine;
import ipoib.neighbour.OwnAddresses;
import ipoib.neighbour.Protocol;
import ipoib.neighbour.Route;
import ipoib.runtime.RateLimiter;
import java.net.Inet6Address;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Neighbor Solicitation and Advertisement (RFC 4861 §7 with the 24-octet link-layer address
 * options of RFC 4391 §9.3): the {@link Protocol} of the neighbour table (an NS to the target's
 * solicited-node group, or unicast to probe a cached entry), the answer to an NS for one of our
 * addresses, the defence of an address against another node's DAD probe, and what an NA teaches
 * (or, for a tentative address, that it is a duplicate). NS and NA arrive on the receive thread.
 */
final class NeighborMessages implements Protocol {
    private final NdServices nd;
    private final DuplicateAddressDetection dad;
    private final RateLimiter conflictLog;
    private final NeighbourEngine neighbours;

    /** @param neighbours the table this protocol serves (it reaches this protocol through a {@link ipoib.neighbour.DeferredProtocol}) */
    NeighborMessages(NdServices nd, DuplicateAddressDetection dad, NeighbourEngine neighbours) {
        this.nd = nd;
        this.dad = dad;
        this.neighbours = neighbours;
        this.conflictLog = new RateLimiter(nd.control.clock(), 10, TimeUnit.SECONDS);
    }

    @Override
    public String solicit(IpoibLink link, long high, long low, Route unicast) {
        Inet6Address target = AddressBits.ipv6(high, low);
        LinkAddress self = link.address();
        if (self == null) {
            return "interface " + link.name() + " is not UP";
        }
        Inet6Address source = nd.source(link, target);
        if (source == null) {
            return "no usable IPv6 address on " + link.name() + " to send Neighbor Solicitations from";
        }
        if (unicast != null) {
            NeighborSolicitation probe = new NeighborSolicitation(source, target, target, Optional.of(self));
            if (!link.sendUnicast(unicast.path(), unicast.qpn(), EtherType.IPV6, NdServices.encode(probe)).isDrop()) {
                nd.counters.nsOut.increment(link.name());
            }
            return null;
        }
        MulticastService m = nd.multicast;
        if (m == null) {
            nd.counters.noMulticast.increment(link.name());
            return "no multicast service (ipoib.mcast) to send Neighbor Solicitations to the solicited-node group";
        }
        NeighborSolicitation ns = NeighborSolicitation.resolve(source, target, self);
        if (!m.send(link, ns.destination(), EtherType.IPV6, NdServices.encode(ns)).isDrop()) {
            nd.counters.nsOut.increment(link.name());
        }
        return null;
    }

    @Override
    public String notANeighbour(String linkName, long high, long low) {
        return OwnAddresses.notANeighbour(nd.addresses, linkName, AddressBits.address(true, high, low));
    }

    @Override
    public String cannotResolve(IpoibLink link, long high, long low) {
        if (nd.addresses == null) {
            return "no interface addresses (the host layer is not running)";
        }
        if ((high >>> 56) == 0xFF) {
            return "a multicast address is not resolved";
        }
        if (nd.source(link, AddressBits.ipv6(high, low)) == null) {
            return "no usable IPv6 address on " + link.name();
        }
        return null;
    }

    /** An NS heard on the link's receive thread. */
    void solicitation(IpoibLink link, NeighborSolicitation ns) {
        nd.counters.nsIn.increment(link.name());
        Inet6Address target = ns.target();
        InterfaceAddress mine = nd.find(link, target);
        if (mine == null || mine.state() == AddressState.DUPLICATE) {
            return;
        }
        boolean probe = ns.source().isAnyLocalAddress();
        if (mine.state() == AddressState.TENTATIVE) {
            if (probe) {
                nd.run(() -> dad.duplicate(link, target, "another node testing it at the same time"));
            }
            return;
        }
        LinkAddress self = link.address();
        if (self == null) {
            return;
        }
        NeighborAdvertisement na = NeighborAdvertisement.answer(ns, target, false, self);
        if (probe) {
            // Another node's DAD of our address: defend it to all-nodes (RFC 4861 §7.2.4).
            MulticastService m = nd.multicast;
            if (m != null && !m.send(link, Memberships.ALL_NODES, EtherType.IPV6, NdServices.encode(na)).isDrop()) {
                nd.counters.naOut.increment(link.name());
            }
            return;
        }
        long high = AddressBits.high(ns.source());
        long low = AddressBits.low(ns.source());
        ns.sourceLinkAddress().ifPresent(sll -> neighbours.learn(link, high, low, sll, true, false));
        if (!neighbours.send(link, high, low, EtherType.IPV6, NdServices.encode(na)).isDrop()) {
            nd.counters.naOut.increment(link.name());
        }
    }

    /** An NA heard on the link's receive thread. */
    void advertisement(IpoibLink link, NeighborAdvertisement na) {
        nd.counters.naIn.increment(link.name());
        Inet6Address target = na.target();
        InterfaceAddress mine = nd.find(link, target);
        LinkAddress self = link.address();
        // A DUPLICATE address is not ours (RFC 4862 §5.4.5: it is not used): its owner's
        // advertisement is learnt like any other neighbour's.
        if (mine != null && mine.state() != AddressState.DUPLICATE) {
            String who = na.targetLinkAddress().map(LinkAddress::toString).orElse("a node that did not say");
            if (mine.state() == AddressState.TENTATIVE) {
                nd.run(() -> dad.duplicate(link, target, who));
            } else if (self != null && na.targetLinkAddress().isPresent()
                    && !na.targetLinkAddress().get().withoutFlags().equals(self.withoutFlags())) {
                nd.counters.conflicts.increment(link.name());
                String line = LogLines.limit(conflictLog, "address conflict on " + link.name() + ": "
                        + AddressBits.text(target) + " is ours, but " + who + " advertises it");
                if (line != null) {
                    nd.reporter.warn(line);
                }
            }
            return;
        }
        na.targetLinkAddress().ifPresent(tll -> {
            long high = AddressBits.high(target);
            long low = AddressBits.low(target);
            neighbours.learn(link, high, low, tll, false, na.solicited(), na.override());
            if (!na.solicited() && neighbours.announced(link, high, low)) {
                nd.counters.announcementsIn.increment(link.name()); // an unsolicited advertisement: the sender's path may have changed
            }
        });
    }
}
