package ipoib.verbs.loopback.fabric;

/** Why the fabric dropped a packet; each has a counter. */
public enum DropReason {
    /** The destination LID is not assigned to an active port. */
    NO_SUCH_LID("no_such_lid"),
    /** No queue pair with the destination QPN on the destination port. */
    NO_SUCH_QP("no_such_qp"),
    /** The partition check failed (different base, or both limited members). */
    PKEY_MISMATCH("pkey_mismatch"),
    /** The datagram's Q_Key is not the receiving queue pair's. */
    QKEY_MISMATCH("qkey_mismatch"),
    /** The receiving queue pair had no receive buffer posted. */
    NO_RECEIVE_BUFFER("no_receive_buffer"),
    /** The receiving completion queue was full. */
    CQ_OVERRUN("cq_overrun"),
    /** The sender's port is not a member of the multicast group. */
    NOT_A_MEMBER("not_a_member"),
    /** No group has the destination MLID. */
    NO_SUCH_GROUP("no_such_group"),
    /** The receiving queue pair is not in a state that receives. */
    QP_NOT_READY("qp_not_ready"),
    /** The sending or receiving port is not ACTIVE. */
    PORT_NOT_ACTIVE("port_not_active"),
    /** A port on the route (an HCA port or a switch port) is not Active or its link is down. */
    ROUTE_PORT_INACTIVE("route_port_inactive"),
    /** A switch on the route has no forwarding entry for the destination LID (unprogrammed, or above LinearFDBTop). */
    NO_ROUTE("no_route"),
    /** A switch's forwarding entry leads back out of the arrival port, or the route exceeds the hop limit. */
    ROUTING_LOOP("routing_loop"),
    /** Fault injection: lost on the link. */
    FAULT_LOSS("fault_loss"),
    /** Fault injection: corrupted on the link, caught by the ICRC/VCRC check. */
    FAULT_CORRUPT("fault_corrupt_crc"),
    /** Fault injection: too many packets already held back by delay or reordering. */
    FAULT_DELAY_QUEUE_FULL("fault_delay_queue_full");

    private final String counterName;

    DropReason(String counterName) {
        this.counterName = counterName;
    }

    /** The counter's name in shell output. */
    public String counterName() {
        return counterName;
    }
}
