package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.Qpn;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.link.internal.cm.CmMetrics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The interfaces ({@code ipoib_link_*}, label {@code interface}): what each one is
 * ({@code ipoib_link_info}), its state, traffic, drops by reason, flaps and the time its
 * broadcast joins and path queries took; the ports under them and their SA clients
 * ({@link PortMetrics}) and connected mode ({@link CmMetrics}), for the console's {@code /metrics}.
 */
@Component(service = MetricsSource.class)
public final class LinkMetrics implements MetricsSource {
    private static final String I = "interface";
    static final Metric INFO = Metric.info("ipoib_link_info", "The interface's identity: HCA (device), port, P_Key, "
            + "mode (datagram or connected), port GID, UD QPN (both empty unless UP) and verbs provider; always 1.",
            I, "device", "port", "pkey", "mode", "gid", "qpn", "provider");
    static final Metric UP = Metric.gauge("ipoib_link_up", "1 when the interface is UP (joined its broadcast group), else 0.", I);
    static final Metric MTU = Metric.gauge("ipoib_link_mtu_bytes", "IPoIB MTU of the interface (0 unless UP).", I);
    static final Metric RX_PACKETS = Metric.counter("ipoib_link_rx_packets_total", "IPoIB frames received.", I);
    static final Metric RX_BYTES = Metric.counter("ipoib_link_rx_bytes_total",
            "Octets of the IPoIB frames received (the 4-octet IPoIB header included).", I);
    static final Metric RX_MULTICAST = Metric.counter("ipoib_link_rx_multicast_packets_total",
            "Frames received on a multicast group, the broadcast group included.", I);
    static final Metric RX_ERRORS = Metric.counter("ipoib_link_rx_errors_total",
            "Receive completions with an error status.", I);
    static final Metric TX_PACKETS = Metric.counter("ipoib_link_tx_packets_total", "IPoIB frames sent.", I);
    static final Metric TX_BYTES = Metric.counter("ipoib_link_tx_bytes_total",
            "Octets of the IPoIB frames sent (the 4-octet IPoIB header included).", I);
    static final Metric TX_MULTICAST = Metric.counter("ipoib_link_tx_multicast_packets_total",
            "Frames sent to a multicast group, the broadcast group included.", I);
    static final Metric TX_ERRORS = Metric.counter("ipoib_link_tx_errors_total", "Send completions with an error status.", I);
    static final Metric HANDLER_ERRORS = Metric.counter("ipoib_link_handler_errors_total",
            "Received frames whose handler (ARP, IP, the bridge) threw.", I);
    static final Metric DROPS = Metric.counter("ipoib_link_drops_total", "Frames the interface dropped, by reason: "
            + "rx_* on receive (no handler for the EtherType, malformed, its own multicast looped back), "
            + "tx_* on send (link down, no path, queue full, too big, ...).", I, "reason");
    static final Metric FLAPS = Metric.counter("ipoib_link_flaps_total",
            "Times the interface left UP (port down or reset, SM change, restart).", I);
    static final Metric BROADCAST_JOIN = Metric.histogram("ipoib_link_broadcast_join_duration_seconds",
            "Time from the broadcast group join request to the membership (scope search and creation included).", I);
    static final Metric PATH_RESOLUTION = Metric.histogram("ipoib_link_path_resolution_duration_seconds",
            "Time from a PathRecord query of the path cache to the path it found.", I);

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Override
    public void collect(MetricSink out) {
        List<IpoibLink> sorted = new ArrayList<>(links);
        sorted.sort(Comparator.comparing(IpoibLink::name));
        collect(out, sorted);
    }

    /** The metrics of {@code links}, in that order. */
    static void collect(MetricSink out, List<IpoibLink> sorted) {
        for (IpoibLink l : sorted) {
            String n = l.name();
            LinkCounters c = l.counters();
            if (l instanceof LinkEngine e) {
                info(out, e);
            }
            out.sample(UP, l.state() == LinkState.UP ? 1 : 0, n);
            out.sample(MTU, l.mtu(), n);
            out.sample(RX_PACKETS, c.rxPackets(), n);
            out.sample(RX_BYTES, c.rxBytes(), n);
            out.sample(RX_MULTICAST, c.rxMulticast(), n);
            out.sample(RX_ERRORS, c.rxErrors(), n);
            out.sample(TX_PACKETS, c.txPackets(), n);
            out.sample(TX_BYTES, c.txBytes(), n);
            out.sample(TX_MULTICAST, c.txMulticast(), n);
            out.sample(TX_ERRORS, c.txErrors(), n);
            out.sample(HANDLER_ERRORS, c.handlerErrors(), n);
            new TreeMap<>(l.dropCounters()).forEach((reason, v) -> out.sample(DROPS, v, n, MetricNames.part(reason)));
            if (l instanceof LinkEngine e) {
                out.sample(FLAPS, e.history.flaps.sum(), n);
                out.histogram(BROADCAST_JOIN, e.history.broadcastJoins.snapshot(), n);
                out.histogram(PATH_RESOLUTION, e.history.pathResolutions.snapshot(), n);
            }
        }
        PortMetrics.collect(out, sorted);
        CmMetrics.collect(out, sorted);
    }

    private static void info(MetricSink out, LinkEngine e) {
        LinkConfig config = e.config();
        Gid gid = e.gid();
        Qpn qpn = e.qpn();
        String provider = e.providerName();
        out.sample(INFO, 1, e.name(), config.device(), Integer.toString(config.port()), config.pkey().toString(),
                e.connectedMode() != null ? "connected" : "datagram", gid == null ? "" : gid.toString(),
                qpn == null ? "" : qpn.toString(), provider == null || provider.equals("-") ? "" : provider);
    }
}
