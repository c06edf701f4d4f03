package ipoib.link.internal.cm;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.verbs.Port;
import ipoib.link.internal.LinkEngine;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Connected mode's metrics: per interface in connected mode ({@code ipoib_cm_*}, label
 * {@code interface}) and of each port's CM agent ({@code ipoib_cm_agent_*}, labels {@code device}
 * and {@code port}: the CM messages by direction and kind, retransmissions, timeouts, MADs dropped
 * by reason, send failures and failed control tasks).
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

    private static final String[] P = {"device", "port"};
    static final Metric AGENT_MESSAGES = Metric.counter("ipoib_cm_agent_messages_total", "CM MADs of the port's "
            + "CM agent (IBA chapter 12) by direction (sent, received) and message (req, rep, rtu, rej, mra, dreq, "
            + "drep).", "device", "port", "direction", "message");
    static final Metric AGENT_RETRANSMISSIONS = Metric.counter("ipoib_cm_agent_retransmissions_total",
            "REQ, REP and DREQ sent again because their answer did not come within the CM timeout.", P);
    static final Metric AGENT_TIMEOUTS = Metric.counter("ipoib_cm_agent_timeouts_total",
            "Connections given up after every retransmission went unanswered.", P);
    static final Metric AGENT_DROPS = Metric.counter("ipoib_cm_agent_drops_total", "CM MADs the agent dropped, by "
            + "reason: unmatched (no connection has its IDs), duplicates (a retransmission already answered), "
            + "malformed.", "device", "port", "reason");
    static final Metric AGENT_REJECTS = Metric.counter("ipoib_cm_agent_rejects_sent_total",
            "REJ messages the agent sent (a REQ to no listener, a refused REP, a stale connection).", P);
    static final Metric AGENT_SEND_FAILURES = Metric.counter("ipoib_cm_agent_send_failures_total",
            "CM MADs the port's transport refused to send.", P);
    static final Metric AGENT_TASK_FAILURES = Metric.counter("ipoib_cm_agent_task_failures_total",
            "Tasks of the agent's control loop that threw; each logged, rate-limited.", P);

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
                agent(out, cm.agentCounters(), p.device().name(), Integer.toString(p.number()));
            }
        }
    }

    /** The agent's counters by name ({@code sent_<kind>}, {@code received_<kind>}, ...) as labelled families. */
    static void agent(MetricSink out, Map<String, Long> counters, String device, String port) {
        new TreeMap<>(counters).forEach((name, v) -> {
            if (name.startsWith("sent_") || name.startsWith("received_")) {
                int at = name.indexOf('_');
                out.sample(AGENT_MESSAGES, v, device, port, name.substring(0, at), name.substring(at + 1));
                return;
            }
            switch (name) {
                case "retransmitted" -> out.sample(AGENT_RETRANSMISSIONS, v, device, port);
                case "timeouts" -> out.sample(AGENT_TIMEOUTS, v, device, port);
                case "unmatched", "duplicates", "malformed" -> out.sample(AGENT_DROPS, v, device, port, name);
                case "rejects_sent" -> out.sample(AGENT_REJECTS, v, device, port);
                case "send_failures" -> out.sample(AGENT_SEND_FAILURES, v, device, port);
                case "loop_failures" -> out.sample(AGENT_TASK_FAILURES, v, device, port);
                default -> { } // a counter without a family yet: ipoib:cm shows it
            }
        });
    }
}
