package ipoib.netdev.internal;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import java.util.Map;
import java.util.TreeMap;

/**
 * A bridged device's counters as metric families (labels {@code interface} and {@code device}):
 * traffic each way, offload work, multicast membership, the packets dropped by reason
 * ({@code ipoib_netdev_drops_total}) and the device's read and write errors.
 */
final class NetdevMetrics {
    private static final String[] L = {"interface", "device"};
    static final Metric DROPS = Metric.counter("ipoib_netdev_drops_total", "Packets the bridge dropped, by reason: "
            + "tx_* read from the device and not sent (malformed, the kernel's own ND, a GSO size refused, link "
            + "down, no route, ...), rx_* received from the fabric and not written (an IPv6 header chain "
            + "malformed, ND without a receiver).", "interface", "device", "reason");
    static final Metric ERRORS = Metric.counter("ipoib_netdev_device_errors_total",
            "Failed reads and writes of the TUN device, by operation.", "interface", "device", "operation");

    /** The counters that are their own family: name part and help. */
    private static final Map<String, String> HELP = Map.ofEntries(
            Map.entry("tx_packets", "Packets read from the device and sent on the fabric."),
            Map.entry("tx_bytes", "Octets of the packets read from the device and sent."),
            Map.entry("tx_multicast", "Packets read from the device to a multicast group."),
            Map.entry("tx_broadcast", "Packets read from the device to the broadcast group."),
            Map.entry("tx_sent", "Frames the link took for sending (the link's send result SENT)."),
            Map.entry("tx_queued", "Frames held while their neighbour or group was resolved."),
            Map.entry("rx_packets", "Packets received from the fabric and written to the device."),
            Map.entry("rx_bytes", "Octets of the packets written to the device."),
            Map.entry("rx_nd_kept_in_stack", "Neighbor Discovery messages answered by the stack, not the kernel."),
            Map.entry("rx_nd_to_stack", "Neighbor Discovery messages handed to the stack's ND."),
            Map.entry("membership_reports", "IGMP and MLD reports of the kernel turned into joins and leaves."),
            Map.entry("membership_joins_over_budget", "Joins of the kernel's groups refused by the join budget."),
            Map.entry("membership_join_failures", "Joins of the kernel's groups that failed at the SA."),
            Map.entry("tx_tso_packets", "TCP packets of up to 64 KiB the kernel left to the device to segment."),
            Map.entry("tx_tso_segments", "Segments cut from those TCP packets."),
            Map.entry("tx_uso_packets", "UDP packets the kernel left to the device to segment."),
            Map.entry("tx_uso_datagrams", "Datagrams cut from those UDP packets."),
            Map.entry("tx_checksums_completed", "Checksums the kernel left to the device, completed by the bridge."),
            Map.entry("rx_gro_packets", "Packets written to the device as one coalesced packet (GRO)."),
            Map.entry("rx_gro_segments", "Segments coalesced into those packets."),
            Map.entry("rx_large_checksums_verified",
                    "Segments too large to coalesce, checksum verified, written with the checksum partial."));
    /** Counters of dropped packets: the {@code reason} is their name. */
    private static final java.util.Set<String> DROPPED = java.util.Set.of("tx_malformed", "tx_kernel_nd_dropped",
            "tx_ipv6_header_chain_malformed", "tx_gso_segment_size_refused", "rx_nd_no_receiver",
            "rx_ipv6_header_chain_malformed");

    private NetdevMetrics() {}

    /** Whether a counter has a family of its own or a reason in one (rather than the generic fallback). */
    static boolean described(String name) {
        return HELP.containsKey(name) || name.equals("read_errors") || name.equals("rx_write_errors")
                || DROPPED.contains(name) || name.startsWith("tx_dropped_");
    }

    static void collect(MetricSink sink, Map<String, Long> counters, String link, String device) {
        new TreeMap<>(counters).forEach((name, v) -> {
            if (HELP.containsKey(name)) {
                sink.sample(Metric.counter("ipoib_netdev_" + name + "_total", HELP.get(name), L), v, link, device);
            } else if (name.equals("read_errors")) {
                sink.sample(ERRORS, v, link, device, "read");
            } else if (name.equals("rx_write_errors")) {
                sink.sample(ERRORS, v, link, device, "write");
            } else if (DROPPED.contains(name) || name.startsWith("tx_dropped_")) {
                sink.sample(DROPS, v, link, device, name);
            } else { // a counter newer than this table (NetdevMetricsTest keeps it complete)
                sink.sample(Metric.counter("ipoib_netdev_" + MetricNames.part(name) + "_total",
                        "Bridge counter " + name + ".", L), v, link, device);
            }
        });
    }
}
