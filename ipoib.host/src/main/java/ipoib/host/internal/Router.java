package ipoib.host.internal;

import ipoib.api.host.HostRoute;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.resolve.AddressBits;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Optional;

/**
 * On-link routing: the host has no gateways, so the route to a destination is an UP link with a
 * usable address of the destination's family whose prefix holds it (or any link for link-local,
 * broadcast and multicast destinations), and that address is the source.
 */
final class Router implements RouteLookup {
    private final HostLinks links;
    private final AddressTable table;
    private final NextHops nextHops;

    Router(HostLinks links, AddressTable table, NextHops nextHops) {
        this.links = links;
        this.table = table;
        this.nextHops = nextHops;
    }

    @Override
    public Optional<HostRoute> route(String linkName, InetAddress destination) {
        if (linkName != null) {
            IpoibLink link = links.get(linkName);
            if (link == null || link.state() != LinkState.UP) {
                return Optional.empty();
            }
            return routeVia(link, destination, true);
        }
        for (IpoibLink link : links.sorted()) {
            if (link.state() == LinkState.UP) {
                Optional<HostRoute> r = routeVia(link, destination, false);
                if (r.isPresent()) {
                    return r;
                }
            }
        }
        return Optional.empty();
    }

    private static boolean isLinkLocal6(InetAddress a) {
        return a instanceof Inet6Address && a.isLinkLocalAddress();
    }

    private static boolean isIpv4Broadcast(InetAddress a) {
        return a instanceof Inet4Address && AddressBits.ipv4(a) == -1;
    }

    /**
     * The route over one link: the usable address of the destination's family that best fits it
     * (its prefix holds the destination, then the same IPv6 scope) is the source. Without a
     * chosen link the destination must be on-link: in that prefix, IPv6 link-local, broadcast or
     * multicast. A destination the link owns itself has no route (no loopback delivery).
     */
    private Optional<HostRoute> routeVia(IpoibLink link, InetAddress destination, boolean chosen) {
        boolean v6 = destination instanceof Inet6Address;
        boolean anyOnLink = (v6 && isLinkLocal6(destination)) || isIpv4Broadcast(destination)
                || destination.isMulticastAddress();
        InterfaceAddress best = null;
        int bestScore = -1;
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.ipv6() != v6 || !a.state().usable()) {
                continue;
            }
            if (a.address().equals(destination)) {
                return Optional.empty();
            }
            int score = (a.contains(destination) ? 4 : 0)
                    + (!v6 || isLinkLocal6(a.address()) == isLinkLocal6(destination) ? 2 : 0);
            if (score > bestScore) {
                best = a;
                bestScore = score;
            }
        }
        if (best == null || !(chosen || anyOnLink || best.contains(destination))) {
            return Optional.empty();
        }
        return Optional.of(new HostRoute(link.name(), best.address(), destination, nextHops.mtu(link, v6)));
    }

    /** Why there is no route: the message of the failure a caller reports. */
    String noRoute(String linkName, InetAddress destination) {
        if (linkName != null) {
            IpoibLink link = links.get(linkName);
            if (link == null) {
                return "no interface '" + linkName + "'";
            }
            if (link.state() != LinkState.UP) {
                return "interface " + linkName + " is " + link.state();
            }
            return "no usable " + (destination instanceof Inet6Address ? "IPv6" : "IPv4") + " address on " + linkName
                    + " for " + AddressBits.text(destination);
        }
        return "no route to " + AddressBits.text(destination)
                + ": no UP interface has an address whose prefix holds it (or it is this host's own address)";
    }
}
