package ipoib.nd.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.nd.PrefixInformation;
import ipoib.codec.nd.RouterAdvertisement;
import ipoib.codec.nd.RouterSolicitation;
import ipoib.neighbour.NeighbourEngine;
import java.net.Inet6Address;
import java.util.Map;
import java.util.Optional;

/**
 * Router discovery for a host (RFC 4861 §6.3, control thread): once the link-local address is
 * usable, up to MAX_RTR_SOLICITATIONS Router Solicitations RTR_SOLICITATION_INTERVAL apart, until
 * an advertisement arrives (§6.3.7); an advertisement sets the hop limit and, within the link's
 * limits, the IPv6 MTU (the IPoIB link MTU is the broadcast group's: a larger MTU option is
 * ignored and logged), teaches the router's link-layer address, keeps the default-router list and
 * hands its prefixes to {@link Autoconfiguration}.
 */
final class RouterDiscovery {
    static final Inet6Address ALL_ROUTERS = AddressBits.ipv6(0xFF02_0000_0000_0000L, 2);
    private static final int MIN_IPV6_MTU = 1280;

    private final NdServices nd;
    private final LinkLocalAddresses linkLocals;
    private final Autoconfiguration autoconf;
    private final NeighbourEngine neighbours;

    RouterDiscovery(NdServices nd, LinkLocalAddresses linkLocals, Autoconfiguration autoconf, NeighbourEngine neighbours) {
        this.nd = nd;
        this.linkLocals = linkLocals;
        this.autoconf = autoconf;
        this.neighbours = neighbours;
    }

    /** The link-local address is usable: solicit routers unless one advertised already. */
    void start(IpoibLink link) {
        LinkNd state = nd.state.get(link.name());
        if (state != null && !state.routerAdvertisementSeen && state.routerSolicitationsLeft == 0) {
            state.routerSolicitationsLeft = nd.options.routerSolicitations();
            state.nextRouterSolicitation = nd.now();
        }
    }

    /** The timer: due solicitations, and the end of routers' lifetimes. */
    void tick() {
        long now = nd.now();
        for (Map.Entry<String, LinkNd> e : nd.state.entrySet()) {
            LinkNd state = e.getValue();
            IpoibLink link = nd.links.get(e.getKey());
            if (link == null || link.state() != LinkState.UP) {
                continue;
            }
            if (state.routerSolicitationsLeft > 0 && !state.routerAdvertisementSeen
                    && now - state.nextRouterSolicitation >= 0) {
                state.routerSolicitationsLeft--;
                state.nextRouterSolicitation = now + nd.options.routerSolicitationIntervalMillis() * 1_000_000L;
                solicit(link);
            }
            state.routers.values().removeIf(expiry -> now - expiry >= 0);
        }
    }

    private void solicit(IpoibLink link) {
        MulticastService m = nd.multicast;
        LinkAddress self = link.address();
        Inet6Address source = linkLocals.of(link);
        InterfaceAddress usable = source == null ? null : nd.find(link, source);
        if (m == null || self == null || usable == null || !usable.state().usable()) {
            return;
        }
        RouterSolicitation rs = new RouterSolicitation(source, ALL_ROUTERS, Optional.of(self));
        // Counted when handed over: with no router on the link the all-routers group does not
        // exist and the multicast manager drops it (RFC 4391 §10), counting it there.
        nd.counters.rsOut.increment(link.name());
        m.send(link, ALL_ROUTERS, EtherType.IPV6, NdServices.encode(rs));
    }

    /** RFC 4861 §6.3.4 for a host, with the RA MTU rule. Control thread. */
    void advertisement(IpoibLink link, RouterAdvertisement ra) {
        LinkNd state = nd.state.get(link.name());
        if (state == null || link.state() != LinkState.UP) {
            return;
        }
        state.routerAdvertisementSeen = true;
        state.routerSolicitationsLeft = 0;
        if (ra.curHopLimit() != 0) {
            state.curHopLimit = ra.curHopLimit();
        }
        String from = AddressBits.text(ra.source());
        if (ra.mtu().isPresent()) {
            mtu(link, state, ra.mtu().getAsLong(), from);
        }
        ra.sourceLinkAddress().ifPresent(sll -> neighbours.learn(link, AddressBits.high(ra.source()),
                AddressBits.low(ra.source()), sll, true, false));
        if (ra.routerLifetime() > 0) {
            state.routers.put(ra.source(), nd.now() + ra.routerLifetime() * 1_000_000_000L);
        } else {
            state.routers.remove(ra.source());
        }
        for (PrefixInformation p : ra.prefixes()) {
            autoconf.prefix(link, p, from);
        }
    }

    private void mtu(IpoibLink link, LinkNd state, long mtu, String from) {
        if (mtu > link.mtu()) {
            nd.counters.raMtuIgnored.increment(link.name());
            nd.reporter.warn("Router Advertisement from " + from + " on " + link.name() + ": MTU option " + mtu
                    + " is larger than the link MTU " + link.mtu() + " (the broadcast group's); ignored");
        } else if (mtu < MIN_IPV6_MTU) {
            nd.counters.raMtuIgnored.increment(link.name());
            nd.reporter.warn("Router Advertisement from " + from + " on " + link.name() + ": MTU option " + mtu
                    + " is below IPv6's minimum of 1280; ignored");
        } else if (mtu != state.raMtu) {
            nd.counters.raMtuApplied.increment(link.name());
            state.raMtu = (int) mtu;
            nd.reporter.info("Router Advertisement from " + from + " on " + link.name() + " sets the IPv6 MTU to " + mtu);
        }
    }
}
