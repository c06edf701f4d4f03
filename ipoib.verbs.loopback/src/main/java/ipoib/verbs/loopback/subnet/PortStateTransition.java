package ipoib.verbs.loopback.subnet;

/**
 * What a PortInfo Set of PortState does to a port (IBA 14.2.5.6 PortState, the link state machine
 * of 7.2): Down restarts link training, so a cabled port whose link is up comes back in Init
 * (ibsim/sim_mad.c do_portinfo does the same); Armed is allowed from Init, Active from Armed,
 * and each is a no-op on a port already there; anything else is an invalid attribute value.
 * Like ibsim, Active also needs the neighbour to be at least Armed (its {@code abs(rp->state - r) <= 1}).
 */
public final class PortStateTransition {
    private PortStateTransition() {
    }

    /**
     * The state after the Set, or null when the request is refused.
     *
     * @param current the port's state
     * @param peer the state of the port at the other end of the cable, or null when uncabled
     * @param requested the PortState field of the Set (0 = no change)
     */
    public static PortState apply(PortState current, PortState peer, int requested) {
        if (requested == 0) {
            return current;
        }
        PortState target = PortState.ofCode(requested);
        if (target == null || target == PortState.INIT) {
            return null;
        }
        if (target == PortState.DOWN) {
            return peer == null ? PortState.DOWN : PortState.INIT;
        }
        if (peer == null) {
            return null;
        }
        if (target == PortState.ARMED) {
            return current == PortState.INIT || current == PortState.ARMED ? PortState.ARMED : null;
        }
        boolean fromArmed = current == PortState.ARMED || current == PortState.ACTIVE;
        boolean peerReady = peer == PortState.ARMED || peer == PortState.ACTIVE;
        return fromArmed && peerReady ? PortState.ACTIVE : null;
    }
}
