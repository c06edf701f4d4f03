package ipoib.host.internal;

import ipoib.api.host.IpHost;
import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.runtime.CounterFamilies;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The host layer's counters for the console's {@code /metrics} ({@code ipoib_host_*}; what it
 * dropped in {@code ipoib_host_drops_total} by reason), one series per interface; the counters of
 * no interface ({@link #TOTAL_ONLY}) without the label.
 */
@Component(service = MetricsSource.class)
public final class HostMetrics implements MetricsSource {
    static final Map<String, String> HELP = Map.ofEntries(
            Map.entry("ipv4_received", "IPv4 packets received for this host."),
            Map.entry("ipv6_received", "IPv6 packets received for this host."),
            Map.entry("echo_requests_sent", "ICMP and ICMPv6 echo requests sent (ipoib:ping, IpHost.ping)."),
            Map.entry("echo_replies_received", "Echo replies received that answered a request of ours."),
            Map.entry("echo_requests_received", "Echo requests received."),
            Map.entry("echo_replies_sent", "Echo replies sent."),
            Map.entry("udp_sent", "UDP datagrams sent through UdpService sockets."),
            Map.entry("udp_received", "UDP datagrams delivered to a socket."),
            Map.entry("udp_receiver_errors", "UDP datagrams whose socket's receiver threw."),
            Map.entry("rx_nd_delivered", "ICMPv6 Neighbor Discovery messages handed to the ND resolver."),
            Map.entry("rx_nd_receiver_errors", "Neighbor Discovery messages whose receiver threw."),
            Map.entry("timer_failures", "Timer tasks of the host layer (echo timeouts) that threw; each logged."),
            Map.entry("tx_sent", "Packets the link took for sending."),
            Map.entry("tx_queued", "Packets held while their neighbour or group was resolved."));

    /** The drop reason of a counter of dropped packets, else null. */
    static String dropReason(String counter) {
        return switch (counter) {
            case "rx_malformed" -> "malformed";
            case "rx_fragments_dropped" -> "fragment";
            case "rx_not_for_us" -> "not_for_us";
            case "rx_unknown_protocol" -> "unknown_protocol";
            case "rx_nd_no_receiver" -> "nd_no_receiver";
            case "udp_no_port" -> "udp_no_port";
            case "tx_no_route" -> "no_route";
            case "echo_replies_unmatched" -> "echo_reply_unmatched";
            case "echo_requests_to_groups_ignored" -> "echo_request_to_group";
            default -> counter.startsWith("tx_dropped_") ? counter.substring("tx_".length()) : null;
        };
    }

    /** Counters that belong to no interface. */
    static final Set<String> TOTAL_ONLY = Set.of("timer_failures");

    static final CounterFamilies FAMILIES = new CounterFamilies("ipoib_host", "The host layer", HELP,
            HostMetrics::dropReason, "interface");
    private static final CounterFamilies TOTALS = new CounterFamilies("ipoib_host", "The host layer", HELP,
            HostMetrics::dropReason);

    private final IpHost host;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links = List.of();

    @Activate
    public HostMetrics(@Reference IpHost host) {
        this.host = host;
    }

    /** For tests: the metrics of {@code host} for {@code links}. */
    HostMetrics(IpHost host, List<IpoibLink> links) {
        this.host = host;
        this.links = links;
    }

    @Override
    public void collect(MetricSink out) {
        write(out, host.counters(), host.countersByInterface(), links);
    }

    /**
     * Every interface of {@code links} (and every one that counted) has a series of every counter,
     * zero where it counted nothing; interfaces in the order of their names.
     */
    static void write(MetricSink out, Map<String, Long> totals, Map<String, Map<String, Long>> byInterface,
                      Collection<IpoibLink> links) {
        Map<String, Long> zeroes = new LinkedHashMap<>();
        Map<String, Long> totalOnly = new LinkedHashMap<>();
        totals.forEach((name, value) -> {
            if (TOTAL_ONLY.contains(name)) {
                totalOnly.put(name, value);
            } else {
                zeroes.put(name, 0L);
            }
        });
        Set<String> names = new TreeSet<>(byInterface.keySet());
        links.forEach(l -> names.add(l.name()));
        for (String link : names) {
            Map<String, Long> values = new LinkedHashMap<>(zeroes);
            byInterface.getOrDefault(link, Map.of()).forEach((name, v) -> {
                if (values.containsKey(name)) {
                    values.put(name, v);
                }
            });
            FAMILIES.write(out, values, link);
        }
        TOTALS.write(out, totalOnly);
    }
}
