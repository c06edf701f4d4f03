package ipoib.verbs.loopback.agent;

import ipoib.codec.Wire;
import ipoib.codec.smp.PortCounters;
import ipoib.codec.smp.PortCountersExtended;
import ipoib.codec.smp.Smp;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortCounter;
import java.lang.foreign.MemorySegment;

/**
 * The performance management agent (class 0x04, IBA 16.1) of every port: ClassPortInfo,
 * PortCounters and PortCountersExtended read from the counters the fabric's data path keeps in
 * each {@link Port} (ibsim/sim_mad.c do_cpi, do_portcounters, do_extcounters). A switch answers
 * for any of its ports, and PortSelect 0xFF sums them all; an HCA answers only for the port the
 * MAD arrived through. A Set clears the counters CounterSelect names and answers their new values.
 */
final class PerformanceAgent {
    /** ClassPortInfo.CapabilityMask AllPortSelect (IBA 16.1.2 table 222). */
    static final int ALL_PORT_SELECT = 1 << 8;
    /** IsExtendedWidthSupported: PortCountersExtended is implemented. */
    static final int EXTENDED_WIDTH_SUPPORTED = 1 << 9;
    /** IsPortXmitWaitSupported: PortXmitWait is counted (always 0: the loopback never waits for credits). */
    static final int XMIT_WAIT_SUPPORTED = 1 << 12;
    /** ClassPortInfo.RespTimeValue as ibsim answers it. */
    static final int RESPONSE_TIME_VALUE = 0x12;

    private static final PortCounter[] SELECT = {null, null, PortCounter.LINK_DOWNED, PortCounter.RCV_ERRORS, null,
        PortCounter.RCV_SWITCH_RELAY_ERRORS, PortCounter.XMIT_DISCARDS, PortCounter.XMIT_CONSTRAINT_ERRORS,
        PortCounter.RCV_CONSTRAINT_ERRORS, null, null, PortCounter.VL15_DROPPED, PortCounter.XMIT_DATA_OCTETS,
        PortCounter.RCV_DATA_OCTETS, PortCounter.XMIT_PACKETS, PortCounter.RCV_PACKETS};
    private static final PortCounter[] EXTENDED = {PortCounter.XMIT_DATA_OCTETS, PortCounter.RCV_DATA_OCTETS,
        PortCounter.XMIT_PACKETS, PortCounter.RCV_PACKETS, PortCounter.UNICAST_XMIT_PACKETS,
        PortCounter.UNICAST_RCV_PACKETS, PortCounter.MULTICAST_XMIT_PACKETS, PortCounter.MULTICAST_RCV_PACKETS};

    private PerformanceAgent() {
    }

    /** ClassPortInfo (IBA 13.4.8.1): versions, CapabilityMask and RespTimeValue; no redirection. */
    static int classPortInfo(Port at, int method, int modifier, MemorySegment data) {
        data.fill((byte) 0);
        Wire.put8(data, 0, 1);
        Wire.put8(data, 1, 1);
        Wire.put16(data, 2, EXTENDED_WIDTH_SUPPORTED | XMIT_WAIT_SUPPORTED | (at.node().isSwitch() ? ALL_PORT_SELECT : 0));
        Wire.put32(data, 4, RESPONSE_TIME_VALUE);
        return method == Smp.METHOD_GET ? 0 : Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
    }

    static int portCounters(Port at, int method, int modifier, MemorySegment data) {
        int select = Wire.u8(data, 1);
        int mask = Wire.u16(data, 2);
        Node n = at.node();
        if (!selectable(at, select)) {
            return Smp.STATUS_INVALID_VALUE;
        }
        long[] sum = new long[PortCounter.values().length];
        for (Port p : selected(n, at, select)) {
            if (method == Smp.METHOD_SET) {
                for (int bit = 0; bit < SELECT.length; bit++) {
                    if ((mask & (1 << bit)) != 0 && SELECT[bit] != null) {
                        p.counters().clear(SELECT[bit]);
                    }
                }
            }
            for (PortCounter c : PortCounter.values()) {
                sum[c.ordinal()] += p.counters().get(c);
            }
        }
        data.fill((byte) 0);
        new PortCounters(select, mask, 0, 0, sat(sum, PortCounter.LINK_DOWNED, 8), sat(sum, PortCounter.RCV_ERRORS, 16),
                0, sat(sum, PortCounter.RCV_SWITCH_RELAY_ERRORS, 16), sat(sum, PortCounter.XMIT_DISCARDS, 16),
                sat(sum, PortCounter.XMIT_CONSTRAINT_ERRORS, 8), sat(sum, PortCounter.RCV_CONSTRAINT_ERRORS, 8), 0, 0,
                0, sat(sum, PortCounter.VL15_DROPPED, 16),
                PortCounters.saturate(sum[PortCounter.XMIT_DATA_OCTETS.ordinal()] / 4, 32),
                PortCounters.saturate(sum[PortCounter.RCV_DATA_OCTETS.ordinal()] / 4, 32),
                PortCounters.saturate(sum[PortCounter.XMIT_PACKETS.ordinal()], 32),
                PortCounters.saturate(sum[PortCounter.RCV_PACKETS.ordinal()], 32), 0).encode(data, 0);
        return 0;
    }

    static int portCountersExtended(Port at, int method, int modifier, MemorySegment data) {
        int select = Wire.u8(data, 1);
        int mask = Wire.u16(data, 2);
        if (!selectable(at, select)) {
            return Smp.STATUS_INVALID_VALUE;
        }
        long[] sum = new long[EXTENDED.length];
        for (Port p : selected(at.node(), at, select)) {
            for (int i = 0; i < EXTENDED.length; i++) {
                if (method == Smp.METHOD_SET && (mask & (1 << i)) != 0) {
                    p.counters().clear(EXTENDED[i]);
                }
                sum[i] += p.counters().get(EXTENDED[i]);
            }
        }
        data.fill((byte) 0);
        new PortCountersExtended(select, mask, sum[0] / 4, sum[1] / 4, sum[2], sum[3], sum[4], sum[5], sum[6], sum[7])
                .encode(data, 0);
        return 0;
    }

    private static boolean selectable(Port at, int select) {
        Node n = at.node();
        if (n.isSwitch()) {
            return select <= n.portCount() || select == PortCounters.ALL_PORTS;
        }
        return select == at.number();
    }

    private static Iterable<Port> selected(Node n, Port at, int select) {
        if (n.isSwitch()) {
            return select == PortCounters.ALL_PORTS ? n.ports() : java.util.List.of(n.port(select));
        }
        return java.util.List.of(at);
    }

    private static int sat(long[] sum, PortCounter c, int bits) {
        return (int) PortCounters.saturate(sum[c.ordinal()], bits);
    }
}
