package ipoib.console.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The neighbour caches by family, interface and state ({@code ipoib_neighbours}) and the resolvers'
 * counters ({@code ipoib_arp_*}, {@code ipoib_nd_*}).
 */
final class NeighbourMetrics implements MetricsSource {
    static final Metric ENTRIES = Metric.gauge("ipoib_neighbours", "Neighbour entries by family, interface and state.",
            "family", "interface", "state");

    private final Map<String, NeighbourResolver> byFamily;
    private final List<IpoibLink> links;

    NeighbourMetrics(Map<String, NeighbourResolver> byFamily, List<IpoibLink> links) {
        this.byFamily = byFamily;
        this.links = links;
    }

    @Override
    public void collect(MetricSink out) {
        byFamily.forEach((family, r) -> {
            String protocol = family.equals(NeighbourResolver.IPV4) ? "arp"
                    : family.equals(NeighbourResolver.IPV6) ? "nd" : MetricNames.part(family);
            Map<String, Map<NeighbourState, Long>> byLink = new TreeMap<>();
            for (IpoibLink l : links) {
                byLink.put(l.name(), zero());
            }
            for (NeighbourEntry n : r.neighbours(null)) {
                byLink.computeIfAbsent(n.link(), k -> zero()).merge(n.state(), 1L, Long::sum);
            }
            byLink.forEach((link, states) -> states.forEach((state, v) -> out.sample(ENTRIES, v, family, link,
                    state.name())));
            new TreeMap<>(r.counters()).forEach((k, v) -> out.sample(Metric.counter(
                    "ipoib_" + protocol + "_" + MetricNames.part(k) + "_total",
                    "Neighbour resolver (" + family + ") counter " + k + "."), v));
        });
    }

    private static Map<NeighbourState, Long> zero() {
        Map<NeighbourState, Long> m = new EnumMap<>(NeighbourState.class);
        for (NeighbourState s : NeighbourState.values()) {
            m.put(s, 0L);
        }
        return m;
    }
}
