package ipoib.verbs.loopback.agent;

import ipoib.codec.smp.Smp;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.PhysicalState;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortDiscard;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.subnet.SwitchTables;
import java.lang.foreign.MemorySegment;

/**
 * How a management packet travels through the subnet (ibsim/sim_mad.c route_MAD and its
 * helpers): by LID through each switch's linear forwarding table over Active links, or by a
 * directed route port by port over trained links (IBA 14.2.2: directed route works before any
 * LID or forwarding table exists, so it needs only the physical link). A packet that cannot go
 * on is counted at the port where it stopped and the route answers null. Called with the
 * topology's lock held.
 *
 * <p>Like ibsim, the router follows the paths without moving the hop pointer (IBA 14.2.2.2 has
 * each SMI advance it): ibsim's clients have no SMI that sets or checks it, and a response must
 * come back with the pointer its requester sent. Only pure directed routes (permissive DrSLID and
 * DrDLID) are followed, as ibsim; OpenSM and infiniband-diags send no others.
 */
final class MadRouter {
    /** ibsim/sim.h MAXHOPS: a LID route longer than this is a loop. */
    static final int MAX_LID_HOPS = 16;
    /**
     * Octets a MAD occupies on a link as PortXmitData and PortRcvData count them: LRH 8, BTH 12,
     * DETH 8, MAD 256, ICRC 4 (ibsim/sim_mad.c pc_updated: 72 words).
     */
    static final int MAD_PACKET_OCTETS = 288;

    private MadRouter() {
    }

    /**
     * The port (an HCA port, or a switch's port 0) that answers {@code lid}, reached from
     * {@code from} through the switches' LFTs, or null (ibsim/sim_mad.c lid_route_MAD).
     */
    static Port lidRoute(Port from, int lid) {
        if (lid <= 0 || lid >= SwitchTables.LINEAR_CAP) {
            return null;
        }
        if (from.lidPort().answersLid(lid)) {
            return from.lidPort();
        }
        Node node = from.node();
        Port in = from;
        if (!node.isSwitch()) {
            Port out = from;
            if (!linkActive(out)) {
                out.counters().discarded(PortDiscard.INACTIVE);
                return null;
            }
            in = out.peer();
            crossed(out, in);
            node = in.node();
            if (!node.isSwitch()) {
                // Two HCAs cabled back to back: the peer answers or nobody does.
                return in.answersLid(lid) ? in : null;
            }
        }
        for (int hop = 0; hop < MAX_LID_HOPS; hop++) {
            if (node.port(0).answersLid(lid)) {
                return node.port(0);
            }
            int outNumber = node.tables().unicastPort(lid);
            if (outNumber == SwitchTables.NO_PORT || outNumber > node.portCount()) {
                in.counters().discarded(PortDiscard.NO_ROUTE);
                return null;
            }
            if (outNumber == 0) {
                return node.port(0).answersLid(lid) ? node.port(0) : null;
            }
            Port out = node.port(outNumber);
            if (!linkActive(out)) {
                out.counters().discarded(PortDiscard.INACTIVE);
                return null;
            }
            Port next = out.peer();
            crossed(out, next);
            if (!next.node().isSwitch()) {
                return next.answersLid(lid) ? next : null;
            }
            in = next;
            node = next.node();
        }
        in.counters().discarded(PortDiscard.LOOPING);
        return null;
    }

    private static boolean linkActive(Port p) {
        Port peer = p.peer();
        return peer != null && p.linkUp() && p.state() == PortState.ACTIVE && peer.state() == PortState.ACTIVE;
    }

    /**
     * Follows an outgoing directed route from {@code from} along InitialPath[1..HopCount], filling
     * ReturnPath[i] with the port the SMP arrived through at hop i (IBA 14.2.2.2; ibsim/sim_mad.c
     * direct_route_out_MAD). Answers the port the SMP arrived through at the last node (for a
     * switch, the external port, which NodeInfo.LocalPortNum reports), or null.
     */
    static Port directedOut(Port from, MemorySegment smp) {
        int hops = Smp.hopCount(smp);
        if (hops > Smp.MAX_HOPS) {
            return null;
        }
        Port at = from;
        Smp.setReturnPath(smp, 0, at.number());
        for (int i = 1; i <= hops; i++) {
            if (i > 1 && !at.node().isSwitch()) {
                return null; // only switches forward (IBA 14.2.2.2: a CA is always the end of a route)
            }
            at = nextPort(at, Smp.initialPath(smp, i));
            if (at == null) {
                return null;
            }
            Smp.setReturnPath(smp, i, at.number());
        }
        return at;
    }

    /**
     * Follows a returning directed route from the responder's port {@code from} along
     * ReturnPath[HopCount..1] back to the requester (IBA 14.2.2.4; ibsim/sim_mad.c
     * direct_route_in_MAD). Answers the port it arrives at, or null.
     */
    static Port directedIn(Port from, MemorySegment smp) {
        int hops = Smp.hopCount(smp);
        if (hops > Smp.MAX_HOPS) {
            return null;
        }
        Port at = from;
        for (int i = hops; i >= 1; i--) {
            if (i < hops && !at.node().isSwitch()) {
                return null;
            }
            at = nextPort(at, Smp.returnPath(smp, i));
            if (at == null) {
                return null;
            }
        }
        return at;
    }

    /**
     * Out of port {@code number} of {@code at}'s node and across its cable (ibsim/sim_mad.c
     * next_port): the port at the far end, or null when there is no such port or the link is not
     * up. Port 0 of a switch is the switch itself.
     */
    private static Port nextPort(Port at, int number) {
        Node node = at.node();
        Port out = node.port(number);
        if (out == null || (!node.isSwitch() && number == 0)) {
            at.counters().discarded(PortDiscard.NO_ROUTE);
            return null;
        }
        if (out.isSwitchPort0()) {
            return out;
        }
        Port peer = out.peer();
        if (peer == null || !out.linkUp() || out.physicalState() != PhysicalState.LINK_UP) {
            out.counters().discarded(PortDiscard.INACTIVE);
            return null;
        }
        crossed(out, peer);
        return peer;
    }

    /** A MAD went out of one port and into the port cabled to it: both count it (ibsim/sim_mad.c pc_updated). */
    private static void crossed(Port out, Port in) {
        out.counters().transmitted(MAD_PACKET_OCTETS, false);
        in.counters().received(MAD_PACKET_OCTETS, false);
    }
}
