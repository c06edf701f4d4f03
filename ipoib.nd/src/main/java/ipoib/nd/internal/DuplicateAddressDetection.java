package ipoib.nd.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.nd.InterfaceIdentifiers;
import ipoib.codec.nd.NeighborSolicitation;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Duplicate address detection (RFC 4862 §5.4) of the tentative addresses (control thread): once
 * the port is a FullMember of all-nodes and the address's solicited-node group, DupAddrDetectTransmits
 * Neighbor Solicitations from the unspecified address, RetransTimer apart; no answer within
 * RetransTimer after the last makes the address PREFERRED (then advertised, and a link-local one
 * starts router solicitation); an advertisement for it or another node's probe makes it
 * DUPLICATE (RFC 4862 §5.4.5: not used).
 */
final class DuplicateAddressDetection {

    /** The detection of one tentative address. */
    private static final class Dad {
        final String link;
        final Inet6Address address;
        int sent;
        long next;
        boolean ready;

        Dad(String link, Inet6Address address) {
            this.link = link;
            this.address = address;
        }
    }

    private final NdServices nd;
    private final Memberships memberships;
    private final UnsolicitedAdvertisements advertisements;
    private final RouterDiscovery routers;
    /** RetransTimer in ms: the neighbour table's retransmission time. */
    private final LongSupplier retransmitMillis;
    private final Map<String, Dad> dads = new HashMap<>();

    DuplicateAddressDetection(NdServices nd, Memberships memberships, UnsolicitedAdvertisements advertisements,
                              RouterDiscovery routers, LongSupplier retransmitMillis) {
        this.nd = nd;
        this.memberships = memberships;
        this.advertisements = advertisements;
        this.routers = routers;
        this.retransmitMillis = retransmitMillis;
    }

    private static String key(String link, InetAddress a) {
        return link + " " + AddressBits.text(a);
    }

    /** Starts DAD of a tentative address (nothing when it runs already or the address is not tentative). */
    void start(IpoibLink link, Inet6Address address) {
        InterfaceAddress current = nd.find(link, address);
        if (current == null || current.state() != AddressState.TENTATIVE || link.state() != LinkState.UP
                || !nd.state.containsKey(link.name())) {
            return;
        }
        String key = key(link.name(), address);
        if (dads.containsKey(key)) {
            return;
        }
        if (nd.options.dadTransmits() == 0) {
            // No probe, but the solicited-node group all the same: neighbours' solicitations go there
            // (RFC 4861 §7.2.1).
            memberships.update(link);
            passed(link, address);
            return;
        }
        MulticastService m = nd.multicast;
        if (m == null) {
            nd.counters.noMulticast.increment(link.name());
            nd.reporter.info("DAD of " + AddressBits.text(address) + " on " + link.name()
                    + " waits for the multicast service (ipoib.mcast): the address stays TENTATIVE");
            return;
        }
        Dad dad = new Dad(link.name(), address);
        dads.put(key, dad);
        memberships.update(link);
        memberships.fullMember(m, link, List.of(Memberships.ALL_NODES, InterfaceIdentifiers.solicitedNodeMulticast(address)))
                .whenComplete((ok, failure) -> nd.run(() -> {
                    if (dads.get(key) != dad) {
                        return;
                    }
                    if (failure != null) {
                        dads.remove(key);
                        nd.reporter.warn("DAD of " + AddressBits.text(address) + " on " + link.name()
                                + " could not join its groups: " + failure + "; trying again when the link or the "
                                + "multicast service comes back");
                        return;
                    }
                    dad.ready = true;
                    dad.next = nd.now();
                    step(dad);
                }));
    }

    /** The timer: the next probe of each detection that is due, or its end. */
    void tick() {
        for (Dad dad : new ArrayList<>(dads.values())) {
            step(dad);
        }
    }

    private void step(Dad dad) {
        IpoibLink link = nd.links.get(dad.link);
        if (link == null || link.state() != LinkState.UP) {
            dads.remove(key(dad.link, dad.address));
            return;
        }
        long now = nd.now();
        if (!dad.ready || now - dad.next < 0) {
            return;
        }
        if (dad.sent < nd.options.dadTransmits()) {
            MulticastService m = nd.multicast;
            NeighborSolicitation probe = NeighborSolicitation.duplicateAddressDetection(dad.address);
            if (m != null && !m.send(link, probe.destination(), EtherType.IPV6, NdServices.encode(probe)).isDrop()) {
                nd.counters.dadProbes.increment(link.name());
            }
            dad.sent++;
            dad.next = now + retransmitMillis.getAsLong() * 1_000_000L;
            return;
        }
        dads.remove(key(dad.link, dad.address));
        passed(link, dad.address);
    }

    private void passed(IpoibLink link, Inet6Address address) {
        InterfaceAddresses table = nd.addresses;
        InterfaceAddress a = nd.find(link, address);
        if (table == null || a == null || a.state() != AddressState.TENTATIVE) {
            return;
        }
        nd.counters.dadPassed.increment(link.name());
        table.setState(link.name(), address, AddressState.PREFERRED);
        nd.reporter.info(AddressBits.text(address) + " on " + link.name() + " passed duplicate address detection");
        advertisements.advertise(link, address);
        if (a.origin() == AddressOrigin.LINK_LOCAL) {
            routers.start(link);
        }
    }

    /** Evidence that a tentative address is in use elsewhere: DUPLICATE, its groups left. */
    void duplicate(IpoibLink link, Inet6Address address, String evidence) {
        InterfaceAddress a = nd.find(link, address);
        if (a == null || a.state() != AddressState.TENTATIVE) {
            return;
        }
        dads.remove(key(link.name(), address));
        nd.counters.dadDuplicates.increment(link.name());
        nd.reporter.warn("duplicate address detected: " + AddressBits.text(address) + " on " + link.name()
                + " is in use by " + evidence + "; the address is not used (RFC 4862 §5.4.5)");
        nd.addresses.setState(link.name(), address, AddressState.DUPLICATE);
        memberships.update(link);
    }

    /** The address went away: its detection stops. */
    void forget(String linkName, InetAddress address) {
        dads.remove(key(linkName, address));
    }

    /** The link went down or away: its detections stop (they start again when it comes up). */
    void forgetLink(String linkName) {
        dads.values().removeIf(d -> d.link.equals(linkName));
    }
}
