package ipoib.link.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.api.verbs.Port;
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
 * The interfaces' state and counters ({@code ipoib_link_*}, label {@code interface}), the SA
 * clients of their ports ({@link SaClientMetrics}) and connected mode ({@link CmMetrics}), for the
 * console's {@code /metrics}.
 */
@Component(service = MetricsSource.class)
public final class LinkMetrics implements MetricsSource {
    private static final String I = "interface";
    static final Metric UP = Metric.gauge("ipoib_link_up", "1 when the interface is UP, else 0.", I);
    static final Metric MTU = Metric.gauge("ipoib_link_mtu_bytes", "IPoIB MTU of the interface (0 unless UP).", I);
    static final Metric RX_PACKETS = Metric.counter("ipoib_link_rx_packets_total", "Frames received.", I);
    static final Metric RX_BYTES = Metric.counter("ipoib_link_rx_bytes_total", "Octets received.", I);
    static final Metric RX_MULTICAST = Metric.counter("ipoib_link_rx_multicast_packets_total",
            "Multicast frames received.", I);
    static final Metric RX_ERRORS = Metric.counter("ipoib_link_rx_errors_total", "Receive errors.", I);
    static final Metric TX_PACKETS = Metric.counter("ipoib_link_tx_packets_total", "Frames sent.", I);
    static final Metric TX_BYTES = Metric.counter("ipoib_link_tx_bytes_total", "Octets sent.", I);
    static final Metric TX_MULTICAST = Metric.counter("ipoib_link_tx_multicast_packets_total", "Multicast frames sent.", I);
    static final Metric TX_ERRORS = Metric.counter("ipoib_link_tx_errors_total", "Send errors.", I);
    static final Metric HANDLER_ERRORS = Metric.counter("ipoib_link_handler_errors_total", "Frame handlers that threw.", I);
    static final Metric NO_HANDLER = Metric.counter("ipoib_link_rx_dropped_no_handler_total",
            "Frames dropped: no handler for the EtherType.", I);
    static final Metric MALFORMED = Metric.counter("ipoib_link_rx_dropped_malformed_total", "Malformed frames dropped.", I);
    static final Metric TX_DROPPED = Metric.counter("ipoib_link_tx_dropped_total", "Frames dropped on send.", I);
    static final Metric DROPS = Metric.counter("ipoib_link_drops_total", "Frames dropped, by reason.", I, "reason");
    static final Metric PORT_NO_RECEIVE_BUFFER = Metric.counter("ipoib_port_rx_dropped_no_receive_buffer_total",
            "Datagrams the port dropped because the receiving queue pair had no posted receive buffer.", "device",
            "port");

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
            out.sample(NO_HANDLER, c.rxDroppedNoHandler(), n);
            out.sample(MALFORMED, c.rxDroppedMalformed(), n);
            out.sample(TX_DROPPED, c.txDropped(), n);
            new TreeMap<>(l.dropCounters()).forEach((reason, v) -> out.sample(DROPS, v, n, MetricNames.part(reason)));
        }
        portDrops(out, sorted);
        SaClientMetrics.collect(out, sorted);
        CmMetrics.collect(out, sorted);
    }

    /** The ports' no-receive-buffer drops, once per port of the interfaces (several may share one). */
    private static void portDrops(MetricSink out, List<IpoibLink> links) {
        TreeMap<String, Port> ports = new TreeMap<>();
        for (IpoibLink l : links) {
            try {
                Port p = l.port();
                ports.putIfAbsent(p.device().name() + "/" + p.number(), p);
            } catch (RuntimeException portGone) {
                // the provider is restarting: the port comes back with the interface
            }
        }
        for (Port p : ports.values()) {
            long drops;
            try {
                drops = p.receiveBufferDrops();
            } catch (RuntimeException portGone) {
                continue;
            }
            if (drops >= 0) {
                out.sample(PORT_NO_RECEIVE_BUFFER, drops, p.device().name(), Integer.toString(p.number()));
            }
        }
    }
}
