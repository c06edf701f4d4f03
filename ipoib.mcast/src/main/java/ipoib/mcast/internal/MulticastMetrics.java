package ipoib.mcast.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The multicast manager's counters by interface and its groups by join state, for the console's
 * {@code /metrics} ({@code ipoib_mcast_*}).
 */
@Component(service = MetricsSource.class)
public final class MulticastMetrics implements MetricsSource {
    static final Metric GROUPS = Metric.gauge("ipoib_mcast_groups", "Multicast groups an interface knows, by join state.",
            "interface", "join_state");

    @Reference
    private MulticastService multicast;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Override
    public void collect(MetricSink out) {
        List<IpoibLink> sorted = new ArrayList<>(links);
        sorted.sort(Comparator.comparing(IpoibLink::name));
        for (IpoibLink l : sorted) {
            new TreeMap<>(multicast.counters(l.name())).forEach((k, v) -> out.sample(Metric.counter(
                    "ipoib_mcast_" + MetricNames.part(k) + "_total", "Multicast manager counter " + k + ".", "interface"),
                    v, l.name()));
        }
        Map<String, Long> groups = new TreeMap<>();
        for (GroupInfo g : multicast.groups(null)) {
            String key = g.link() + "\u0000" + (g.joinState() == null ? "none" : g.joinState().toString());
            groups.merge(key, 1L, Long::sum);
        }
        groups.forEach((k, v) -> {
            String[] parts = k.split("\u0000");
            out.sample(GROUPS, v, parts[0], parts[1]);
        });
    }
}
