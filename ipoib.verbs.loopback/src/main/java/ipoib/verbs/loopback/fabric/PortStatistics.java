package ipoib.verbs.loopback.fabric;

import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortCounter;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One port's traffic and discards as named counters, for {@code fabric:ports} and the metrics:
 * packets and octets each way, and the packets the data path dropped there by reason (out of a
 * port not Active, no forwarding entry, a loop).
 */
public final class PortStatistics {
    private PortStatistics() {
    }

    /** Every counter by name, in a stable order; a {@code drop_} prefix marks a drop reason. */
    public static Map<String, Long> of(Port port) {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("xmit_packets", port.counters().get(PortCounter.XMIT_PACKETS));
        out.put("rcv_packets", port.counters().get(PortCounter.RCV_PACKETS));
        out.put("xmit_octets", port.counters().get(PortCounter.XMIT_DATA_OCTETS));
        out.put("rcv_octets", port.counters().get(PortCounter.RCV_DATA_OCTETS));
        out.put("drop_" + DropReason.ROUTE_PORT_INACTIVE.counterName(), port.counters().get(PortCounter.INACTIVE_DISCARDS));
        out.put("drop_" + DropReason.NO_ROUTE.counterName(), port.counters().get(PortCounter.DLID_MAPPING_ERRORS));
        out.put("drop_" + DropReason.ROUTING_LOOP.counterName(), port.counters().get(PortCounter.LOOPING_ERRORS));
        return out;
    }
}
