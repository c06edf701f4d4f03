package ipoib.verbs.loopback.subnet;

/**
 * Why the data path dropped a packet at a port, and which counters that raises (IBA 16.1.3.5
 * PortCounters, 16.1.4.x detail attributes; ibsim/sim_mad.c pc_add_error_xmitdiscards,
 * pc_add_error_rcvswitchrelay).
 */
public enum PortDiscard {
    /** Out of a port whose link is down or whose state is not Active. */
    INACTIVE(PortCounter.XMIT_DISCARDS, PortCounter.INACTIVE_DISCARDS),
    /** Larger than the neighbour's MTU. */
    NEIGHBOR_MTU(PortCounter.XMIT_DISCARDS, PortCounter.NEIGHBOR_MTU_DISCARDS),
    /** Into a switch port whose switch has no forwarding entry for the DLID. */
    NO_ROUTE(PortCounter.RCV_SWITCH_RELAY_ERRORS, PortCounter.DLID_MAPPING_ERRORS),
    /** Into a switch port whose forwarding entry is the arrival port itself. */
    LOOPING(PortCounter.RCV_SWITCH_RELAY_ERRORS, PortCounter.LOOPING_ERRORS),
    /** Refused by the P_Key check on the way in. */
    RCV_PKEY(PortCounter.RCV_CONSTRAINT_ERRORS, null),
    /** Refused by the P_Key check on the way out. */
    XMIT_PKEY(PortCounter.XMIT_CONSTRAINT_ERRORS, null),
    /** Malformed on arrival. */
    MALFORMED(PortCounter.RCV_ERRORS, null);

    private final PortCounter summary;
    private final PortCounter detail;

    PortDiscard(PortCounter summary, PortCounter detail) {
        this.summary = summary;
        this.detail = detail;
    }

    /** The PortCounters field this discard raises. */
    public PortCounter summary() {
        return summary;
    }

    /** The detail counter this discard raises as well, or null. */
    public PortCounter detail() {
        return detail;
    }
}
