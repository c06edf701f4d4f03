package ipoib.runtime;

import ipoib.api.metrics.Metric;

/**
 * The InfiniBand port counters (IBA 16.1.3.5 PortCounters, 16.1.4.11 PortCountersExtended) as the
 * metric families both verbs providers write, labelled {@code device} and {@code port}: the
 * loopback fabric from its ports' counters, the hardware provider from the kernel's
 * {@code /sys/class/infiniband/<device>/ports/<port>/counters/} files (named as node_exporter's
 * infiniband collector reads them; the data counters there count 4-octet words).
 */
public enum IbPortCounter {
    DATA_TRANSMITTED("port_data_transmitted_bytes_total", "port_xmit_data", 4,
            "Data octets transmitted on the port (PortXmitData)."),
    DATA_RECEIVED("port_data_received_bytes_total", "port_rcv_data", 4,
            "Data octets received on the port (PortRcvData)."),
    PACKETS_TRANSMITTED("port_packets_transmitted_total", "port_xmit_packets", 1,
            "Packets transmitted on the port (PortXmitPkts)."),
    PACKETS_RECEIVED("port_packets_received_total", "port_rcv_packets", 1,
            "Packets received on the port (PortRcvPkts)."),
    UNICAST_TRANSMITTED("unicast_packets_transmitted_total", "unicast_xmit_packets", 1,
            "Unicast packets transmitted (PortUnicastXmitPkts)."),
    UNICAST_RECEIVED("unicast_packets_received_total", "unicast_rcv_packets", 1,
            "Unicast packets received (PortUnicastRcvPkts)."),
    MULTICAST_TRANSMITTED("multicast_packets_transmitted_total", "multicast_xmit_packets", 1,
            "Multicast packets transmitted (PortMulticastXmitPkts)."),
    MULTICAST_RECEIVED("multicast_packets_received_total", "multicast_rcv_packets", 1,
            "Multicast packets received (PortMulticastRcvPkts)."),
    TRANSMIT_DISCARDS("port_transmit_discards_total", "port_xmit_discards", 1,
            "Outbound packets discarded: port down or not Active, MTU too small (PortXmitDiscards)."),
    RECEIVE_ERRORS("port_receive_errors_total", "port_rcv_errors", 1,
            "Malformed inbound packets (PortRcvErrors)."),
    RECEIVE_SWITCH_RELAY_ERRORS("port_receive_switch_relay_errors_total", "port_rcv_switch_relay_errors", 1,
            "Inbound packets a switch could not forward: no forwarding entry, a loop (PortRcvSwitchRelayErrors)."),
    RECEIVE_CONSTRAINT_ERRORS("port_receive_constraint_errors_total", "port_rcv_constraint_errors", 1,
            "Inbound packets refused by partition enforcement (PortRcvConstraintErrors)."),
    TRANSMIT_CONSTRAINT_ERRORS("port_transmit_constraint_errors_total", "port_xmit_constraint_errors", 1,
            "Outbound packets refused by partition enforcement (PortXmitConstraintErrors)."),
    VL15_DROPPED("vl15_dropped_total", "VL15_dropped", 1,
            "Subnet management packets dropped for lack of a VL15 buffer (VL15Dropped)."),
    LINK_DOWNED("link_downed_total", "link_downed", 1,
            "Times the port's link went down (LinkDownedCounter).");

    /** The family of this counter, {@code ipoib_ib_<name>} with the labels {@code device} and {@code port}. */
    public final Metric metric;
    /** The file of the kernel's {@code counters/} directory. */
    public final String sysfsName;
    /** What one unit of that file is, in the family's unit (4 for the data counters' words). */
    public final int sysfsScale;

    IbPortCounter(String name, String sysfsName, int sysfsScale, String help) {
        this.metric = Metric.counter("ipoib_ib_" + name, help, "device", "port");
        this.sysfsName = sysfsName;
        this.sysfsScale = sysfsScale;
    }
}
