package ipoib.neighbour;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A resolver's metrics: its cache by interface and state ({@code ipoib_neighbours}, one family
 * that the ARP and ND resolvers share through the label {@code family}) and its counters
 * ({@code ipoib_<protocol>_*}).
 */
public final class NeighbourMetrics {
    static final Metric ENTRIES = Metric.gauge("ipoib_neighbours", "Neighbour entries by family, interface and state.",
            "family", "interface", "state");

    private NeighbourMetrics() {}

    /**
     * Writes {@code resolver}'s metrics; every interface of {@code links} has a sample for every
     * state, zero when it has no such entry; interfaces in the order of their names.
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
        new TreeMap<>(resolver.counters()).forEach((k, v) -> out.sample(Metric.counter(
                "ipoib_" + protocol + "_" + MetricNames.part(k) + "_total",
                "Neighbour resolver (" + family + ") counter " + k + "."), v));
    }

    private static Map<NeighbourState, Long> zero() {
        Map<NeighbourState, Long> m = new EnumMap<>(NeighbourState.class);
        for (NeighbourState s : NeighbourState.values()) {
            m.put(s, 0L);
        }
        return m;
    }
}
