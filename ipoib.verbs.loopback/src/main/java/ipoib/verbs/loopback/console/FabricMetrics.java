package ipoib.verbs.loopback.console;

import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.verbs.loopback.fabric.PortStatistics;
import ipoib.verbs.loopback.internal.FabricCommands;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The loopback fabric's counters for the console's /metrics: the fabric's packets and drops by
 * reason ({@code ipoib_fabric_*}), every cabled port's traffic and drops by reason, labelled with
 * its node and port number ({@code ipoib_fabric_port_*}), and the emulated SA's requests, answers
 * and traps ({@code ipoib_fabric_sa_*}).
 */
@Component(service = MetricsSource.class)
public final class FabricMetrics implements MetricsSource {
    private final FabricCommands commands;

    @Activate
    public FabricMetrics(@Reference FabricCommands commands) {
        this.commands = commands;
    }

    @Override
    public void collect(MetricSink sink) {
        sink.counters("ipoib_fabric", commands.fabric().counters().snapshot(), List.of());
        for (Node n : commands.fabric().topology().nodes()) {
            for (Port p : n.ports()) {
                if (p.number() != 0 && p.peer() != null) {
                    sink.counters("ipoib_fabric_port", PortStatistics.of(p), List.of("node", "port"), n.name(),
                            Integer.toString(p.number()));
                }
            }
        }
        sink.counters("ipoib_fabric_sa", commands.subnetAdministrator().statistics(), List.of());
    }
}
