package ipoib.link.internal.cm;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.verbs.Port;
import ipoib.link.internal.LinkEngine;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Connected mode's metrics: per interface in connected mode ({@code ipoib_cm_*}, label
 * {@code interface}) and of each port's CM agent ({@code ipoib_cm_agent_*}, labels {@code device}
 * and {@code port}: the messages by kind, retransmissions, timeouts, malformed MADs and failed
 * control tasks).
 */
public final class CmMetrics {
    private static final String I = "interface";
    static final Metric CONNECTIONS = Metric.gauge("ipoib_cm_connections", "RC connections of the interface now.", I);
    static final Metric ESTABLISHED = Metric.counter("ipoib_cm_connections_established_total",
            "RC connections established.", I);
    static final Metric REJECTED = Metric.counter("ipoib_cm_connections_rejected_total",
            "Connection requests the peer rejected.", I);
    static final Metric FAILURES = Metric.counter("ipoib_cm_connection_failures_total",
            "Connections that failed (set-up or later).", I);
    static final Metric REAPED = Metric.counter("ipoib_cm_connections_reaped_total", "Idle connections torn down.", I);
    static final Metric OVER_UD = Metric.counter("ipoib_cm_sent_over_ud_total",
            "Frames sent over UD while the peer's connection had failed.", I);
    static final Metric TOO_BIG = Metric.counter("ipoib_cm_too_big_notices_total",
            "ICMP too-big notices for frames that did not fit UD.", I);

    private CmMetrics() {}

    public static void collect(MetricSink out, List<IpoibLink> links) {
        Set<Port> agents = new HashSet<>();
        for (IpoibLink l : links) {
            if (!(l instanceof LinkEngine engine)) {
                continue;
            }
            ConnectedMode cm = engine.connectedMode();
            if (cm == null) {
                continue;
            }
            String n = engine.name();
            out.sample(CONNECTIONS, cm.connections().size(), n);
            out.sample(ESTABLISHED, cm.established.sum(), n);
            out.sample(REJECTED, cm.rejected.sum(), n);
            out.sample(FAILURES, cm.failures.sum(), n);
            out.sample(REAPED, cm.reaped.sum(), n);
            out.sample(OVER_UD, cm.sentOverUd.sum(), n);
            out.sample(TOO_BIG, cm.tooBigNotices.sum(), n);
            Port p = engine.port();
            if (agents.add(p)) { // interfaces of one port share its CM agent
                out.counters("ipoib_cm_agent", cm.agentCounters(), List.of("device", "port"), p.device().name(),
                        Integer.toString(p.number()));
            }
        }
    }
}
