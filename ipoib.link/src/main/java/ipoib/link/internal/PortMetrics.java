package ipoib.link.internal;

import ipoib.api.Rate;
import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.VerbsException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ports that carry an interface, whichever provider they belong to (labels {@code device} and
 * {@code port}): their state, rate, Q_Key violations and drops ({@code ipoib_port_*}) and their SA
 * client ({@code ipoib_sa_client_*}: requests, retransmissions, timeouts, answers dropped by
 * reason, reports, RMPP transfers and the round-trip time).
 */
final class PortMetrics {
    private static final String[] P = {"device", "port"};
    static final Metric STATE = Metric.gauge("ipoib_port_state", "Logical state of the port as IBA numbers it "
            + "(PortInfo PortState): 1 Down, 2 Initialize, 3 Armed, 4 Active.", P);
    static final Metric RATE = Metric.gauge("ipoib_port_rate_bytes_per_second",
            "Active data rate of the port (link width times lane speed), in octets per second.", P);
    static final Metric QKEY_VIOLATIONS = Metric.counter("ipoib_port_qkey_violations_total",
            "Datagrams the port discarded because their Q_Key did not match the queue pair's.", P);
    static final Metric DROPS = Metric.counter("ipoib_port_drops_total", "Datagrams the port dropped, by reason: "
            + "no_receive_buffer (the receiving queue pair had no posted receive buffer; mlx5's out_of_buffer).",
            "device", "port", "reason");
    static final Metric SA_REQUESTS = Metric.counter("ipoib_sa_client_requests_total",
            "Requests the SA client sent to the subnet administrator (each retransmission counted once more).", P);
    static final Metric SA_RETRANSMISSIONS = Metric.counter("ipoib_sa_client_retransmissions_total",
            "Requests sent again because no answer came within the SA timeout.", P);
    static final Metric SA_TIMEOUTS = Metric.counter("ipoib_sa_client_timeouts_total",
            "Requests that failed without an answer after every attempt.", P);
    static final Metric SA_NOT_SENT = Metric.counter("ipoib_sa_client_send_failures_total",
            "Requests the port could not send (the MAD transport refused them).", P);
    static final Metric SA_DROPS = Metric.counter("ipoib_sa_client_drops_total", "MADs from the subnet administrator "
            + "the client dropped, by reason: unmatched (no request waits for its transaction ID), malformed, "
            + "duplicate_report (a Report sent again), rmpp_duplicate_segment.", "device", "port", "reason");
    static final Metric SA_REPORTS = Metric.counter("ipoib_sa_client_reports_total",
            "Reports (multicast group traps) received and handed to subscribers.", P);
    static final Metric SA_PENDING = Metric.gauge("ipoib_sa_client_pending_requests", "Requests waiting for an answer now.", P);
    static final Metric SA_SUBSCRIPTIONS = Metric.gauge("ipoib_sa_client_subscriptions",
            "Trap subscriptions (InformInfo) the client holds now.", P);
    static final Metric SA_TASK_FAILURES = Metric.counter("ipoib_sa_client_task_failures_total",
            "Timer tasks of the client (retransmission, timeout, RMPP stall) that threw; each logged, rate-limited.", P);
    static final Metric SA_RMPP_TRANSFERS = Metric.counter("ipoib_sa_client_rmpp_transfers_total",
            "Answers received in RMPP transfers (IBA 13.6), completed.", P);
    static final Metric SA_RMPP_SEGMENTS = Metric.counter("ipoib_sa_client_rmpp_segments_total",
            "RMPP segments received.", P);
    static final Metric SA_RMPP_ABORTED = Metric.counter("ipoib_sa_client_rmpp_aborted_total",
            "RMPP transfers aborted (stalled, too large, out of order beyond the window).", P);
    static final Metric SA_TABLES_CUT = Metric.counter("ipoib_sa_client_tables_cut_total",
            "Table answers that arrived cut (an unsegmented answer longer than one MAD).", P);
    static final Metric SA_ROUND_TRIP = Metric.histogram("ipoib_sa_client_round_trip_duration_seconds",
            "Time from a request's first send to its answer, retransmissions included.", P);

    /** The client's statistics by name: the counter each is written as. */
    private static final Map<String, Metric> SA_COUNTERS = Map.ofEntries(Map.entry("sent", SA_REQUESTS),
            Map.entry("retransmitted", SA_RETRANSMISSIONS), Map.entry("timed_out", SA_TIMEOUTS),
            Map.entry("not_sent", SA_NOT_SENT), Map.entry("reports", SA_REPORTS), Map.entry("pending", SA_PENDING),
            Map.entry("subscriptions", SA_SUBSCRIPTIONS), Map.entry("task_failures", SA_TASK_FAILURES),
            Map.entry("rmpp_transfers", SA_RMPP_TRANSFERS), Map.entry("rmpp_segments", SA_RMPP_SEGMENTS),
            Map.entry("rmpp_aborted", SA_RMPP_ABORTED), Map.entry("tables_cut", SA_TABLES_CUT));
    /** The client's statistics that count dropped MADs: the {@code reason} of each. */
    private static final Map<String, String> SA_DROP_REASONS = Map.of("unmatched_answers", "unmatched",
            "malformed_answers", "malformed", "duplicate_reports", "duplicate_report",
            "rmpp_duplicate_segments", "rmpp_duplicate_segment");

    private PortMetrics() {}

    static void collect(MetricSink out, List<IpoibLink> links) {
        Map<String, Port> ports = new TreeMap<>();
        for (IpoibLink l : links) {
            try {
                Port p = l.port();
                if (p != null) {
                    ports.putIfAbsent(p.device().name() + "\u0000" + p.number(), p);
                }
            } catch (RuntimeException gone) {
                // The port's provider is going away: left out of this scrape.
            }
        }
        for (Port p : ports.values()) {
            String device = p.device().name();
            String number = Integer.toString(p.number());
            PortAttributes a = p.attributes();
            long violations = p.qkeyViolations();
            out.sample(STATE, a.state().ordinal() + 1, device, number);
            out.sample(RATE, bytesPerSecond(a.rate()), device, number);
            out.sample(QKEY_VIOLATIONS, violations, device, number);
            long noReceiveBuffer = p.receiveBufferDrops();
            if (noReceiveBuffer >= 0) {
                out.sample(DROPS, noReceiveBuffer, device, number, "no_receive_buffer");
            }
            saClient(out, p, device, number);
        }
    }

    /** The port's SA client, unless the port has none (a provider may leave SA traffic to another). */
    private static void saClient(MetricSink out, Port p, String device, String number) {
        SubnetAdministrator sa;
        try {
            sa = p.subnetAdministrator();
        } catch (VerbsException none) {
            return;
        }
        Map<String, Long> drops = new LinkedHashMap<>();
        new TreeMap<>(sa.statistics()).forEach((k, v) -> {
            Metric m = SA_COUNTERS.get(k);
            if (m != null) {
                out.sample(m, v, device, number);
            } else if (SA_DROP_REASONS.containsKey(k)) {
                drops.put(SA_DROP_REASONS.get(k), v);
            }
        });
        drops.forEach((reason, v) -> out.sample(SA_DROPS, v, device, number, reason));
        out.histogram(SA_ROUND_TRIP, sa.roundTrips(), device, number);
    }

    /** An IBA rate (e.g. {@code RATE_2_5_GBPS}, 2.5 Gb/s) in octets per second. */
    static long bytesPerSecond(Rate rate) {
        if (rate == null) {
            return 0;
        }
        String gbps = rate.name().substring("RATE_".length(), rate.name().length() - "_GBPS".length()).replace('_', '.');
        return Math.round(Double.parseDouble(gbps) * 1e9 / 8);
    }
}
