package ipoib.verbs.loopback.console;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.api.sa.SaStatus;
import ipoib.runtime.IbPortCounter;
import ipoib.verbs.loopback.fabric.DropReason;
import ipoib.verbs.loopback.fabric.FabricCounters;
import ipoib.verbs.loopback.fabric.SubnetAdministratorEmulator;
import ipoib.verbs.loopback.internal.FabricCommands;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortCounter;
import ipoib.verbs.loopback.subnet.PortCounters;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The loopback fabric for the console's /metrics: its packets and drops by reason and its RC
 * transport ({@code ipoib_fabric_*}); every cabled port's IB counters, of HCAs and switches alike,
 * in the families the hardware provider writes too ({@code ipoib_ib_*}, labels {@code device}: the
 * node's name, and {@code port}), with the discards by reason ({@code ipoib_fabric_port_drops_total});
 * and the emulated SA's requests by attribute and method, answers by status, dropped requests and
 * traps ({@code ipoib_fabric_sa_*}).
 */
@Component(service = MetricsSource.class)
public final class FabricMetrics implements MetricsSource {
    static final Metric SENT = Metric.counter("ipoib_fabric_sent_packets_total", "Packets the fabric's ports sent (UD and RC).");
    static final Metric DELIVERED = Metric.counter("ipoib_fabric_delivered_packets_total",
            "Packets the fabric delivered to a receive queue (UD and RC).");
    static final Metric DUPLICATED = Metric.counter("ipoib_fabric_duplicated_packets_total",
            "Packets the duplicate fault delivered twice.");
    static final Metric DELAYED = Metric.counter("ipoib_fabric_delayed_packets_total",
            "Packets the delay or reorder fault held back.");
    static final Metric LENGTH_ERRORS = Metric.counter("ipoib_fabric_send_length_errors_total",
            "Sends refused because the message exceeded the path MTU.");
    static final Metric DROPS = Metric.counter("ipoib_fabric_drops_total", "Packets the fabric dropped, by reason "
            + "(no such LID or QP, P_Key or Q_Key mismatch, no receive buffer, no route, faults, ...).", "reason");
    static final Metric RC_SENT = Metric.counter("ipoib_fabric_rc_sent_packets_total",
            "RC data packets sent, retransmissions included.");
    static final Metric RC_RETRANSMISSIONS = Metric.counter("ipoib_fabric_rc_retransmissions_total",
            "RC packets sent again after a NAK or an ACK timeout.");
    static final Metric RC_ACK_TIMEOUTS = Metric.counter("ipoib_fabric_rc_ack_timeouts_total",
            "RC requesters whose ACK did not come in time.");
    static final Metric RC_NAKS = Metric.counter("ipoib_fabric_rc_naks_total",
            "NAKs RC responders sent, by kind: sequence (PSN error), rnr (receiver not ready).", "kind");
    static final Metric RC_DISCARDS = Metric.counter("ipoib_fabric_rc_discards_total", "RC packets a responder or "
            + "requester discarded, by reason: duplicate, out_of_sequence, ack_lost (fault).", "reason");
    static final Metric EVENT_FAILURES = Metric.counter("ipoib_fabric_event_failures_total",
            "Tasks of the fabric's event loop that threw; each logged, rate-limited.");
    static final Metric PORT_DROPS = Metric.counter("ipoib_fabric_port_drops_total", "Packets dropped at a port, by "
            + "reason: route_port_inactive (out of a port not Active), no_route (no forwarding entry), "
            + "routing_loop, neighbor_mtu.", "device", "port", "reason");
    static final Metric SA_REQUESTS = Metric.counter("ipoib_fabric_sa_requests_total",
            "Requests the emulated subnet administrator received, by attribute and method.", "attribute", "method");
    static final Metric SA_ANSWERS = Metric.counter("ipoib_fabric_sa_answers_total",
            "Answers of the emulated subnet administrator, by MAD status (IBA 13.4.7: success, busy, no_records, ...).",
            "status");
    static final Metric SA_RMPP = Metric.counter("ipoib_fabric_sa_rmpp_events_total", "RMPP transfers of the "
            + "emulated subnet administrator's table answers (IBA 13.6), by event: transfers, segments sent and "
            + "retransmitted, ACKs received, aborts, segments and ACKs lost to faults.", "event");
    static final Metric SA_DROPPED = Metric.counter("ipoib_fabric_sa_requests_dropped_total",
            "Requests the emulated subnet administrator dropped without an answer (the sa-drop fault).");
    static final Metric SA_TRAPS = Metric.counter("ipoib_fabric_sa_traps_total",
            "Multicast group traps (Reports) sent to subscribers, by outcome: reported, lost (the trap-loss fault).",
            "outcome");
    static final Metric SA_LOOP_FAILURES = Metric.counter("ipoib_fabric_sa_loop_failures_total",
            "Tasks of the emulated subnet administrator's loop that threw; each logged, rate-limited.");

    private final FabricCommands commands;

    @Activate
    public FabricMetrics(@Reference FabricCommands commands) {
        this.commands = commands;
    }

    @Override
    public void collect(MetricSink sink) {
        fabric(sink, commands.fabric().counters());
        for (Node n : commands.fabric().topology().nodes()) {
            for (Port p : n.ports()) {
                if (p.number() != 0 && p.peer() != null) {
                    port(sink, n.name(), Integer.toString(p.number()), p.counters());
                }
            }
        }
        sa(sink, commands.subnetAdministrator());
    }

    static void fabric(MetricSink sink, FabricCounters c) {
        Map<String, Long> s = c.snapshot();
        sink.sample(SENT, s.get("sent"));
        sink.sample(DELIVERED, s.get("delivered"));
        sink.sample(DUPLICATED, s.get("duplicated"));
        sink.sample(DELAYED, s.get("delayed"));
        sink.sample(LENGTH_ERRORS, s.get("send_length_errors"));
        for (DropReason r : DropReason.values()) {
            sink.sample(DROPS, c.drops(r), r.counterName());
        }
        sink.sample(RC_SENT, s.get("rc_sent"));
        sink.sample(RC_RETRANSMISSIONS, s.get("rc_retransmitted"));
        sink.sample(RC_ACK_TIMEOUTS, s.get("rc_ack_timeouts"));
        sink.sample(RC_NAKS, s.get("rc_sequence_naks"), "sequence");
        sink.sample(RC_NAKS, s.get("rc_rnr_naks"), "rnr");
        sink.sample(RC_DISCARDS, s.get("rc_duplicates"), "duplicate");
        sink.sample(RC_DISCARDS, s.get("rc_out_of_sequence"), "out_of_sequence");
        sink.sample(RC_DISCARDS, s.get("rc_acks_lost"), "ack_lost");
        sink.sample(EVENT_FAILURES, s.get("event_failures"));
    }

    /** One port's counters as the IBA names them, and its discards by reason. */
    static void port(MetricSink sink, String device, String port, PortCounters c) {
        for (IbPortCounter k : IbPortCounter.values()) {
            sink.sample(k.metric, c.get(of(k)), device, port);
        }
        sink.sample(PORT_DROPS, c.get(PortCounter.INACTIVE_DISCARDS), device, port, "route_port_inactive");
        sink.sample(PORT_DROPS, c.get(PortCounter.DLID_MAPPING_ERRORS), device, port, "no_route");
        sink.sample(PORT_DROPS, c.get(PortCounter.LOOPING_ERRORS), device, port, "routing_loop");
        sink.sample(PORT_DROPS, c.get(PortCounter.NEIGHBOR_MTU_DISCARDS), device, port, "neighbor_mtu");
    }

    /** The loopback's counter behind each IBA port counter (its data counters count octets). */
    static PortCounter of(IbPortCounter k) {
        return switch (k) {
            case DATA_TRANSMITTED -> PortCounter.XMIT_DATA_OCTETS;
            case DATA_RECEIVED -> PortCounter.RCV_DATA_OCTETS;
            case PACKETS_TRANSMITTED -> PortCounter.XMIT_PACKETS;
            case PACKETS_RECEIVED -> PortCounter.RCV_PACKETS;
            case UNICAST_TRANSMITTED -> PortCounter.UNICAST_XMIT_PACKETS;
            case UNICAST_RECEIVED -> PortCounter.UNICAST_RCV_PACKETS;
            case MULTICAST_TRANSMITTED -> PortCounter.MULTICAST_XMIT_PACKETS;
            case MULTICAST_RECEIVED -> PortCounter.MULTICAST_RCV_PACKETS;
            case TRANSMIT_DISCARDS -> PortCounter.XMIT_DISCARDS;
            case RECEIVE_ERRORS -> PortCounter.RCV_ERRORS;
            case RECEIVE_SWITCH_RELAY_ERRORS -> PortCounter.RCV_SWITCH_RELAY_ERRORS;
            case RECEIVE_CONSTRAINT_ERRORS -> PortCounter.RCV_CONSTRAINT_ERRORS;
            case TRANSMIT_CONSTRAINT_ERRORS -> PortCounter.XMIT_CONSTRAINT_ERRORS;
            case VL15_DROPPED -> PortCounter.VL15_DROPPED;
            case LINK_DOWNED -> PortCounter.LINK_DOWNED;
        };
    }

    /** A MAD status as its name ({@code success}, {@code no_records}), or its number when it has none. */
    static String statusLabel(int status) {
        String described = SaStatus.describe(status); // "0x0000 (success)"
        String name = MetricNames.part(described.substring(described.indexOf(' ') + 1));
        return name.equals("unknown_status") ? String.format("0x%04x", status) : name;
    }

    static void sa(MetricSink sink, SubnetAdministratorEmulator sa) {
        sa.requestCounts().forEach((kind, n) -> {
            int space = kind.lastIndexOf(' ');
            sink.sample(SA_REQUESTS, n, kind.substring(0, Math.max(0, space)), kind.substring(space + 1));
        });
        sa.answerCounts().forEach((status, n) -> sink.sample(SA_ANSWERS, n, statusLabel(status)));
        sa.rmppStatistics().forEach((name, n) -> sink.sample(SA_RMPP, n, MetricNames.part(name.replaceFirst("^RMPP ", ""))));
        sink.sample(SA_DROPPED, sa.droppedRequests());
        sink.sample(SA_TRAPS, sa.trapsReported(), "reported");
        sink.sample(SA_TRAPS, sa.trapsLost(), "lost");
        sink.sample(SA_LOOP_FAILURES, sa.loopFailures());
    }
}
