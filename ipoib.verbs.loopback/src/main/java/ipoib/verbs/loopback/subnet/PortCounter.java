package ipoib.verbs.loopback.subnet;

/**
 * The per-port counters the performance agent reports (IBA 16.1.3.5 PortCounters, 16.1.4.11
 * PortCountersExtended; discard details as in ibsim's {@code struct Portcounters}, sim.h).
 * Data counters count octets (the agent reports them in 4-octet words as IBA requires).
 */
public enum PortCounter {
    XMIT_DATA_OCTETS,
    RCV_DATA_OCTETS,
    XMIT_PACKETS,
    RCV_PACKETS,
    UNICAST_XMIT_PACKETS,
    UNICAST_RCV_PACKETS,
    MULTICAST_XMIT_PACKETS,
    MULTICAST_RCV_PACKETS,
    /** PortXmitDiscards: outbound packets discarded (port down, not active, MTU...). */
    XMIT_DISCARDS,
    /** PortRcvErrors: malformed inbound packets. */
    RCV_ERRORS,
    /** PortRcvSwitchRelayErrors: inbound packets a switch could not forward (no LFT entry, loops). */
    RCV_SWITCH_RELAY_ERRORS,
    /** PortRcvConstraintErrors: inbound packets refused by partition enforcement. */
    RCV_CONSTRAINT_ERRORS,
    /** PortXmitConstraintErrors: outbound packets refused by partition enforcement. */
    XMIT_CONSTRAINT_ERRORS,
    /** VL15Dropped: SMPs dropped for lack of a VL15 buffer. */
    VL15_DROPPED,
    /** LinkDownedCounter: times the link went down. */
    LINK_DOWNED,
    /** PortXmitDiscardDetails.PortInactiveDiscards. */
    INACTIVE_DISCARDS,
    /** PortXmitDiscardDetails.PortNeighborMTUDiscards. */
    NEIGHBOR_MTU_DISCARDS,
    /** PortRcvErrorDetails.PortDLIDMappingErrors: no forwarding entry for the DLID. */
    DLID_MAPPING_ERRORS,
    /** PortRcvErrorDetails.PortLoopingErrors: the route leads back out of the arrival port. */
    LOOPING_ERRORS;
}
