package ipoib.neighbour;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import ipoib.runtime.CounterFamilies;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A resolver's metrics: its cache by interface and state ({@code ipoib_neighbours}, one family
 * that the ARP and ND resolvers share through the label {@code family}) and its counters
 * ({@code ipoib_<protocol>_*}; the frames it dropped in {@code ipoib_<protocol>_drops_total} by
 * reason), each series with the label {@code interface}.
 */
public final class NeighbourMetrics {
    static final Metric ENTRIES = Metric.gauge("ipoib_neighbours", "Neighbour entries by family, interface and state.",
            "family", "interface", "state");

    /** What each counter of the table (the shared engine's, ARP's and ND's own) counts. */
    static final Map<String, String> HELP = Map.ofEntries(
            Map.entry("solicitations_sent", "Solicitations (ARP requests, Neighbor Solicitations) sent to resolve an address."),
            Map.entry("solicitations_retransmitted", "Solicitations sent again because no answer came in time."),
            Map.entry("unicast_probes_sent", "Unicast probes sent to revalidate a stale entry."),
            Map.entry("resolved", "Addresses resolved to a link-layer address."),
            Map.entry("path_lookups", "PathRecord queries for resolved neighbours."),
            Map.entry("path_failures", "PathRecord queries that failed."),
            Map.entry("resolution_failures", "Resolutions given up after every solicitation went unanswered."),
            Map.entry("revalidations", "Entries revalidated after their reachable time."),
            Map.entry("path_refreshes", "Paths of entries queried again (path timeout, path changes)."),
            Map.entry("qpn_changes", "Neighbours that announced a new QPN (a port reset)."),
            Map.entry("gid_changes", "Neighbours that announced a new GID."),
            Map.entry("frames_queued", "Frames held while their neighbour was resolved."),
            Map.entry("queued_frames_sent", "Held frames sent once their neighbour was resolved."),
            Map.entry("entries_evicted", "Entries evicted, least recently used, because the table was full."),
            Map.entry("entries_collected", "Idle entries removed after the idle time."),
            Map.entry("address_conflicts", "Messages from another node claiming an address of ours."),
            Map.entry("announcements_heard", "Gratuitous announcements heard that updated an entry."),
            Map.entry("gratuitous_sent", "Gratuitous ARP announcements sent (interface UP, address change)."),
            Map.entry("requests_sent", "ARP requests sent."),
            Map.entry("requests_received", "ARP requests received."),
            Map.entry("replies_sent", "ARP replies sent."),
            Map.entry("replies_received", "ARP replies received."),
            Map.entry("rx_ignored", "Messages received that were not for this node (another target address)."),
            Map.entry("solicitations_received", "Neighbor Solicitations received."),
            Map.entry("advertisements_received", "Neighbor Advertisements received."),
            Map.entry("ns_sent", "Neighbor Solicitations sent."),
            Map.entry("na_sent", "Neighbor Advertisements sent."),
            Map.entry("dad_probes_sent", "Duplicate Address Detection probes sent (RFC 4862 §5.4)."),
            Map.entry("dad_duplicates", "Addresses Duplicate Address Detection found in use elsewhere."),
            Map.entry("dad_passed", "Addresses that passed Duplicate Address Detection."),
            Map.entry("router_solicitations_sent", "Router Solicitations sent."),
            Map.entry("router_advertisements_received", "Router Advertisements received."),
            Map.entry("ra_mtu_applied", "MTU options of Router Advertisements applied to an interface."),
            Map.entry("ra_mtu_ignored", "MTU options of Router Advertisements ignored (above the link MTU)."),
            Map.entry("addresses_autoconfigured", "Addresses made by stateless autoconfiguration (SLAAC)."));

    /** The drop reason of a counter of dropped frames or messages, else null. */
    static String dropReason(String counter) {
        if (counter.startsWith("dropped_")) {
            return counter.substring("dropped_".length());
        }
        return counter.equals("rx_malformed") ? "malformed" : null;
    }

    private NeighbourMetrics() {}

    /**
     * Writes {@code resolver}'s metrics; every interface of {@code links} (and every one that
     * counted) has a sample for every state and every counter, zero when it has no such entry or
     * counted nothing; interfaces in the order of their names.
     *
     * @param family {@link NeighbourResolver#IPV4} or {@link NeighbourResolver#IPV6}
     * @param protocol the counters' name part, {@code arp} or {@code nd}
     */
    public static void collect(MetricSink out, String family, String protocol, NeighbourResolver resolver,
                               Collection<IpoibLink> links) {
        Map<String, Map<NeighbourState, Long>> byLink = new TreeMap<>();
        for (IpoibLink l : links) {
            byLink.put(l.name(), zero());
        }
        for (NeighbourEntry n : resolver.neighbours(null)) {
            byLink.computeIfAbsent(n.link(), k -> zero()).merge(n.state(), 1L, Long::sum);
        }
        byLink.forEach((link, states) -> states.forEach((state, v) -> out.sample(ENTRIES, v, family, link,
                state.name())));
        CounterFamilies families = families(protocol);
        Map<String, Map<String, Long>> counted = resolver.countersByInterface();
        Map<String, Long> zeroes = new LinkedHashMap<>();
        resolver.counters().keySet().forEach(name -> zeroes.put(name, 0L));
        Set<String> names = new TreeSet<>(byLink.keySet());
        names.addAll(counted.keySet());
        for (String link : names) {
            families.write(out, counted.getOrDefault(link, zeroes), link);
        }
    }

    /** The counters' families of {@code protocol} ({@code arp} or {@code nd}). */
    static CounterFamilies families(String protocol) {
        return new CounterFamilies("ipoib_" + protocol, "The " + protocol.toUpperCase(java.util.Locale.ROOT)
                + " resolver", HELP, NeighbourMetrics::dropReason, "interface");
    }

    private static Map<NeighbourState, Long> zero() {
        Map<NeighbourState, Long> m = new EnumMap<>(NeighbourState.class);
        for (NeighbourState s : NeighbourState.values()) {
            m.put(s, 0L);
        }
        return m;
    }
}
