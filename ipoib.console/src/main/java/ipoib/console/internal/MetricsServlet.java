package ipoib.console.internal;

import ipoib.api.host.IpHost;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code /metrics} on the HTTP service: every counter of the links, neighbours (by state),
 * multicast, the host layer and of other bundles' counter sources ({@link CounterSources}: the
 * loopback fabric's, the bridged devices'), in the Prometheus text format.
 */
@Component(service = Servlet.class, property = {
        "osgi.http.whiteboard.servlet.pattern=/metrics",
        "osgi.http.whiteboard.servlet.name=ipoib-metrics"})
public final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Service property of a counter source: the metric name prefix, e.g. {@code ipoib_fabric}. */
    static final String PREFIX_PROPERTY = CounterSources.PREFIX_PROPERTY;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Reference
    private Resolvers resolvers;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile MulticastService multicast;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile IpHost host;

    private final CounterSources sources = new CounterSources();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            target = "(" + PREFIX_PROPERTY + "=*)")
    void addSource(Supplier<Map<String, Long>> source, Map<String, Object> properties) {
        sources.add(source, properties);
    }

    void removeSource(Supplier<Map<String, Long>> source) {
        sources.remove(source);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType(Exposition.CONTENT_TYPE);
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(collect().text());
    }

    Exposition collect() {
        Exposition e = new Exposition();
        List<IpoibLink> sorted = new ArrayList<>(links);
        sorted.sort(Comparator.comparing(IpoibLink::name));
        for (IpoibLink l : sorted) {
            links(e, l);
        }
        saClients(e, sorted);
        resolvers.byFamily().forEach((family, r) -> neighbours(e, family, r, sorted));
        MulticastService m = multicast;
        if (m != null) {
            for (IpoibLink l : sorted) {
                m.counters(l.name()).forEach((k, v) -> e.counter("ipoib_mcast_" + Exposition.snake(k) + "_total",
                        "Multicast manager counter " + k + ".", v, "interface", l.name()));
            }
            Map<String, Long> groups = new TreeMap<>();
            for (GroupInfo g : m.groups(null)) {
                String key = g.link() + "\u0000" + (g.joinState() == null ? "none" : g.joinState().toString());
                groups.merge(key, 1L, Long::sum);
            }
            groups.forEach((k, v) -> {
                String[] parts = k.split("\u0000");
                e.gauge("ipoib_mcast_groups", "Multicast groups an interface knows, by join state.", v,
                        "interface", parts[0], "join_state", parts[1]);
            });
        }
        IpHost h = host;
        if (h != null) {
            new TreeMap<>(h.counters()).forEach((k, v) -> e.counter("ipoib_host_" + Exposition.snake(k) + "_total",
                    "Host layer counter " + k + ".", v));
        }
        sources.writeTo(e);
        return e;
    }

    /** The SA client of each port that carries an interface, whichever provider it belongs to. */
    private static void saClients(Exposition e, List<IpoibLink> links) {
        Map<String, Map<String, Long>> byPort = new TreeMap<>();
        for (IpoibLink l : links) {
            try {
                ipoib.api.verbs.Port p = l.port();
                byPort.putIfAbsent(p.device().name() + "\u0000" + p.number(), p.subnetAdministrator().statistics());
            } catch (RuntimeException gone) {
                // The port's provider is going away: left out of this scrape.
            }
        }
        byPort.forEach((key, stats) -> {
            String[] port = key.split("\u0000");
            new TreeMap<>(stats).forEach((k, v) -> {
                String name = "ipoib_sa_client_" + Exposition.snake(k);
                if (k.equals("pending") || k.equals("subscriptions")) {
                    e.gauge(name, "SA client: " + k + " now.", v, "device", port[0], "port", port[1]);
                } else {
                    e.counter(name + "_total", "SA client counter " + k + ".", v, "device", port[0], "port", port[1]);
                }
            });
        });
    }

    private static void links(Exposition e, IpoibLink l) {
        String n = l.name();
        LinkCounters c = l.counters();
        e.gauge("ipoib_link_up", "1 when the interface is UP, else 0.", l.state() == LinkState.UP ? 1 : 0, "interface", n);
        e.gauge("ipoib_link_mtu_bytes", "IPoIB MTU of the interface (0 unless UP).", l.mtu(), "interface", n);
        e.counter("ipoib_link_rx_packets_total", "Frames received.", c.rxPackets(), "interface", n);
        e.counter("ipoib_link_rx_bytes_total", "Octets received.", c.rxBytes(), "interface", n);
        e.counter("ipoib_link_rx_multicast_packets_total", "Multicast frames received.", c.rxMulticast(), "interface", n);
        e.counter("ipoib_link_rx_errors_total", "Receive errors.", c.rxErrors(), "interface", n);
        e.counter("ipoib_link_tx_packets_total", "Frames sent.", c.txPackets(), "interface", n);
        e.counter("ipoib_link_tx_bytes_total", "Octets sent.", c.txBytes(), "interface", n);
        e.counter("ipoib_link_tx_multicast_packets_total", "Multicast frames sent.", c.txMulticast(), "interface", n);
        e.counter("ipoib_link_tx_errors_total", "Send errors.", c.txErrors(), "interface", n);
        e.counter("ipoib_link_handler_errors_total", "Frame handlers that threw.", c.handlerErrors(), "interface", n);
        e.counter("ipoib_link_rx_dropped_no_handler_total", "Frames dropped: no handler for the EtherType.",
                c.rxDroppedNoHandler(), "interface", n);
        e.counter("ipoib_link_rx_dropped_malformed_total", "Malformed frames dropped.", c.rxDroppedMalformed(),
                "interface", n);
        e.counter("ipoib_link_tx_dropped_total", "Frames dropped on send.", c.txDropped(), "interface", n);
        new TreeMap<>(l.dropCounters()).forEach((reason, v) -> e.counter("ipoib_link_drops_total",
                "Frames dropped, by reason.", v, "interface", n, "reason", Exposition.snake(reason)));
    }

    private static void neighbours(Exposition e, String family, NeighbourResolver r, List<IpoibLink> links) {
        String protocol = family.equals(NeighbourResolver.IPV4) ? "arp" : family.equals(NeighbourResolver.IPV6) ? "nd"
                : Exposition.snake(family);
        Map<String, Map<NeighbourState, Long>> byLink = new TreeMap<>();
        for (IpoibLink l : links) {
            byLink.put(l.name(), zero());
        }
        for (NeighbourEntry n : r.neighbours(null)) {
            byLink.computeIfAbsent(n.link(), k -> zero()).merge(n.state(), 1L, Long::sum);
        }
        byLink.forEach((link, states) -> states.forEach((state, v) -> e.gauge("ipoib_neighbours",
                "Neighbour entries by family, interface and state.", v, "family", family, "interface", link,
                "state", state.name())));
        new TreeMap<>(r.counters()).forEach((k, v) -> e.counter("ipoib_" + protocol + "_" + Exposition.snake(k) + "_total",
                "Neighbour resolver (" + family + ") counter " + k + ".", v));
    }

    private static Map<NeighbourState, Long> zero() {
        Map<NeighbourState, Long> m = new EnumMap<>(NeighbourState.class);
        for (NeighbourState s : NeighbourState.values()) {
            m.put(s, 0L);
        }
        return m;
    }
}
