package ipoib.nd.internal;

import ipoib.api.host.AddressListener;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import java.net.Inet6Address;

/**
 * What ND does when a link comes up, goes down or is unbound, when a service it needs comes
 * (back), and when one of the link's addresses changes (control thread): its groups, its
 * link-local address, DAD of tentative addresses (every address again after a fresh UP, RFC 4862
 * §5.4), router solicitation once the link-local address is usable.
 */
final class LinkEvents {
    private final NdServices nd;
    private final Memberships memberships;
    private final LinkLocalAddresses linkLocals;
    private final DuplicateAddressDetection dad;
    private final RouterDiscovery routers;

    LinkEvents(NdServices nd, Memberships memberships, LinkLocalAddresses linkLocals, DuplicateAddressDetection dad,
               RouterDiscovery routers) {
        this.nd = nd;
        this.memberships = memberships;
        this.linkLocals = linkLocals;
        this.dad = dad;
        this.routers = routers;
    }

    /**
     * The link is UP: join all-nodes, make sure of the link-local address, and run DAD. A
     * {@code fresh} UP (the interface came up) tests every address again (RFC 4862 §5.4); when
     * this component merely (re)started, usable addresses stay as they are.
     */
    void up(IpoibLink link, boolean fresh) {
        if (link.state() != LinkState.UP) {
            return;
        }
        LinkNd state = nd.state.computeIfAbsent(link.name(), k -> new LinkNd());
        if (fresh) {
            state.raMtu = 0;
            state.routers.clear();
            state.routerAdvertisementSeen = false;
        }
        InterfaceAddresses table = nd.addresses;
        if (table == null) {
            return;
        }
        memberships.update(link);
        linkLocals.ensure(link, table);
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (!a.ipv6()) {
                continue;
            }
            if (a.state() == AddressState.TENTATIVE) {
                dad.start(link, (Inet6Address) a.address());
            } else if (fresh && a.state() != AddressState.DUPLICATE) {
                table.setState(link.name(), a.address(), AddressState.TENTATIVE);
            } else if (!fresh && a.origin() == AddressOrigin.LINK_LOCAL && a.state().usable()) {
                routers.start(link);
            }
        }
    }

    /** The link went DOWN: its detections stop, its RA MTU and solicitations are void. */
    void down(IpoibLink link) {
        dad.forgetLink(link.name());
        LinkNd state = nd.state.get(link.name());
        if (state != null) {
            state.raMtu = 0;
            state.routerSolicitationsLeft = 0;
        }
    }

    /**
     * The link's service went away: the multicast manager keeps an interface's listeners across a
     * re-registration of its service, so ND leaves its own; the next service of the name is joined
     * anew by {@link #up}.
     */
    void unbound(IpoibLink link) {
        LinkNd state = nd.state.remove(link.name());
        if (state != null) {
            memberships.leaveAll(link.name(), state);
        }
        dad.forgetLink(link.name());
    }

    /** After a service came (back): the UP links' joins, link-local addresses and pending DADs. */
    void resumeAll() {
        for (IpoibLink link : nd.links.all()) {
            if (link.state() == LinkState.UP) {
                up(link, false);
            }
        }
    }

    /** An IPv6 address of a bound link changed (on the host's thread: the work goes to the control loop). */
    void addressChanged(IpoibLink link, InterfaceAddress address, AddressListener.Change change) {
        Inet6Address a = (Inet6Address) address.address();
        switch (change) {
            case ADDED, STATE -> {
                if (address.state() == AddressState.TENTATIVE) {
                    nd.run(() -> dad.start(link, a));
                } else if (address.state() == AddressState.DUPLICATE) {
                    nd.run(() -> memberships.update(link));
                }
            }
            case REMOVED -> nd.run(() -> {
                dad.forget(link.name(), a);
                memberships.update(link);
            });
            case UPDATED -> {
                // Lifetimes only.
            }
        }
    }
}
