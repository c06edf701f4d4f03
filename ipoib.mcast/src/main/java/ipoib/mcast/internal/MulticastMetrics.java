package ipoib.mcast.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.runtime.CounterFamilies;
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

    static final Metric JOIN_DURATION = Metric.histogram("ipoib_mcast_join_duration_seconds",
            "Time from a multicast group join request (or create) to the membership, for the joins that succeeded.",
            "interface");

    /** What each counter of {@link McastCounters} counts; its {@code tx_dropped_*} are drop reasons. */
    static final Map<String, String> HELP = Map.ofEntries(
            Map.entry("tx_queued", "Frames held in a group's queue while its join was under way."),
            Map.entry("tx_sent_after_join", "Held frames sent when their group's join completed."),
            Map.entry("tx_via_all_routers", "Frames sent to the all-routers group because their group does not "
                    + "exist (RFC 4391 §10)."),
            Map.entry("sa_lookups", "Group existence queries (MCMemberRecord GetTable) sent to the SA."),
            Map.entry("joins", "Joins that gave the interface a membership."),
            Map.entry("join_failures", "Joins that failed (SA error, timeout)."),
            Map.entry("leaves", "Memberships left."),
            Map.entry("leave_failures", "Leaves the SA did not confirm."),
            Map.entry("traps_created", "Group-created traps (64) received."),
            Map.entry("traps_deleted", "Group-deleted traps (65) received."),
            Map.entry("audit_repairs", "Groups the periodic audit found deleted or created anew without a trap."),
            Map.entry("send_only_idle_leaves", "Send-only memberships left because no frame used them for the idle time."));
    static final CounterFamilies FAMILIES = new CounterFamilies("ipoib_mcast", "The multicast manager", HELP,
            name -> name.startsWith("tx_dropped_") ? name.substring("tx_dropped_".length()) : null, "interface");

    @Reference
    private MulticastService multicast;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Override
    public void collect(MetricSink out) {
        List<IpoibLink> sorted = new ArrayList<>(links);
        sorted.sort(Comparator.comparing(IpoibLink::name));
        for (IpoibLink l : sorted) {
            FAMILIES.write(out, multicast.counters(l.name()), l.name());
            if (multicast instanceof MulticastComponent component) {
                out.histogram(JOIN_DURATION, component.joinTimes(l.name()), l.name());
            }
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
