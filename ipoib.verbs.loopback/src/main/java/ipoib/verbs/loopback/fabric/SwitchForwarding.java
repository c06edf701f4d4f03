package ipoib.verbs.loopback.fabric;

import ipoib.verbs.loopback.subnet.Node;
import java.lang.foreign.MemorySegment;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortDiscard;
import ipoib.verbs.loopback.subnet.SwitchTables;

/**
 * Forwards packets hop by hop through the subnet's switches, as the switches would: a unicast
 * packet through each switch's linear forwarding table, a multicast packet through each switch's
 * multicast forwarding table, only out of ports that are Active with their link up (IBA 18.2.4:
 * a switch relays by the DLID alone). Each port on the way counts the packet for the performance
 * agent; a packet a switch cannot forward is counted at the port and with its reason (a port not
 * Active, no forwarding entry, a loop) there and fabric-wide. Allocation-free.
 */
final class SwitchForwarding {
    /** A route longer than this is a loop (IBA 13.6: at most 64 hops for a directed route; the same bound here). */
    static final int MAX_HOPS = 64;

    private final Fabric fabric;
    private final FabricCounters counters;

    SwitchForwarding(Fabric fabric, FabricCounters counters) {
        this.fabric = fabric;
        this.counters = counters;
    }

    /**
     * Carries {@code packets} unicast packets of {@code octets} octets in all from an HCA port to
     * the HCA port that answers {@code dlid}, counting them on every port they cross.
     *
     * @return the destination's loopback port, or null when the packets were dropped (counted)
     */
    LoopPort route(LoopPort source, int dlid, int octets, int packets) {
        Port out = source.model;
        if (out.answersLid(dlid)) {
            return source; // to its own LID: the HCA loops it back without using the link
        }
        for (int hop = 0; hop < MAX_HOPS; hop++) {
            Port in = out.peer();
            if (!out.isActive() || in == null || !in.isActive()) {
                return dropped(out, PortDiscard.INACTIVE, DropReason.ROUTE_PORT_INACTIVE, dlid, packets);
            }
            transmitted(out, octets, packets, false);
            received(in, octets, packets, false);
            Node node = in.node();
            if (!node.isSwitch()) {
                if (in.answersLid(dlid)) {
                    return fabric.hcaPort(in);
                }
                // Cabled straight to an HCA that is not the destination: nothing can forward it.
                return dropped(in, PortDiscard.NO_ROUTE, DropReason.NO_ROUTE, dlid, packets);
            }
            int next = node.tables().unicastPort(dlid);
            if (next == SwitchTables.NO_PORT || next == 0 || next > node.portCount()) {
                // Port 0 is the switch itself: its management agent, not a data path destination.
                return dropped(in, PortDiscard.NO_ROUTE, DropReason.NO_ROUTE, dlid, packets);
            }
            if (next == in.number()) {
                return dropped(in, PortDiscard.LOOPING, DropReason.ROUTING_LOOP, dlid, packets);
            }
            out = node.port(next);
        }
        return dropped(out, PortDiscard.LOOPING, DropReason.ROUTING_LOOP, dlid, packets);
    }

    /**
     * Counts a packet a port could not pass on, at the port and fabric-wide. A destination LID that
     * no Active HCA port answers counts as {@link DropReason#NO_SUCH_LID}, as it did before the
     * fabric had switches; the port's own counter still says where and why it stopped.
     */
    private LoopPort dropped(Port at, PortDiscard discard, DropReason reason, int dlid, int packets) {
        discarded(at, discard, packets);
        LoopPort destination = fabric.subnetManager().portByLid(dlid);
        counters.drop(destination == null || !destination.isActive() ? DropReason.NO_SUCH_LID : reason, packets);
        return null;
    }

    /**
     * Carries one multicast packet from an HCA port through the switches to every HCA port the
     * multicast forwarding tables lead to, handing it to {@code delivery} at each; the sending port
     * first gets its own copy (an HCA delivers a group's packets to its own attached queue pairs).
     */
    void multicast(LoopPort source, int mlid, int octets, MulticastDelivery delivery, Packet packet) {
        delivery.arrived(source, packet);
        Port out = source.model;
        Port in = out.peer();
        if (!out.isActive() || in == null || !in.isActive()) {
            if (in != null) {
                out.counters().discarded(PortDiscard.INACTIVE);
                counters.drop(DropReason.ROUTE_PORT_INACTIVE);
            }
            return;
        }
        transmitted(out, octets, 1, true);
        received(in, octets, 1, true);
        arrive(in, mlid, octets, delivery, packet, 0);
    }

    private void arrive(Port in, int mlid, int octets, MulticastDelivery delivery, Packet packet, int hops) {
        Node node = in.node();
        if (!node.isSwitch()) {
            LoopPort port = fabric.hcaPort(in);
            if (port != null) {
                delivery.arrived(port, packet);
            }
            return;
        }
        if (hops >= MAX_HOPS) {
            in.counters().discarded(PortDiscard.LOOPING);
            counters.drop(DropReason.ROUTING_LOOP);
            return;
        }
        SwitchTables tables = node.tables();
        for (int p = 1; p <= node.portCount(); p++) {
            if (p == in.number() || !tables.multicastForwards(mlid, p)) {
                continue; // never back out of the arrival port (IBA 18.2.4.3.3)
            }
            Port out = node.port(p);
            Port next = out.peer();
            if (!out.isActive() || next == null || !next.isActive()) {
                out.counters().discarded(PortDiscard.INACTIVE);
                counters.drop(DropReason.ROUTE_PORT_INACTIVE);
                continue;
            }
            transmitted(out, octets, 1, true);
            received(next, octets, 1, true);
            arrive(next, mlid, octets, delivery, packet, hops + 1);
        }
    }

    /** Where a multicast packet reaches an HCA port (one object for every packet: nothing is captured). */
    @FunctionalInterface
    interface MulticastDelivery {
        void arrived(LoopPort port, Packet packet);
    }

    /**
     * The multicast packet being forwarded, reused: a sender fills it under its send lock and the
     * walk reads it, so that forwarding allocates nothing.
     */
    static final class Packet {
        LoopQueuePair sender;
        LoopAddressHandle ah;
        MulticastGroup group;
        int qkey;
        MemorySegment payload;
        long offset;
        int length;

        Packet set(LoopQueuePair sender, LoopAddressHandle ah, MulticastGroup group, int qkey, MemorySegment payload,
                   long offset, int length) {
            this.sender = sender;
            this.ah = ah;
            this.group = group;
            this.qkey = qkey;
            this.payload = payload;
            this.offset = offset;
            this.length = length;
            return this;
        }

        /** Lets go of the sender's buffer once the packet has been delivered. */
        void clear() {
            sender = null;
            ah = null;
            group = null;
            payload = null;
        }
    }

    /** Counts packets a port discarded, for the performance agent (PortXmitDiscards and its details, IBA 16.1.3.5). */
    static void discarded(Port at, PortDiscard discard, int packets) {
        for (int i = 0; i < packets; i++) {
            at.counters().discarded(discard);
        }
    }

    /** A UD packet's octets on the wire, LRH to VCRC (as PortXmitData counts them): headers, padded payload, CRCs. */
    static int udOctets(boolean grh, int payloadLength) {
        return ipoib.codec.iba.UdPacket.headerLength(grh) + (payloadLength + 3 & ~3) + CRC_OCTETS;
    }

    /** An RC SEND packet's octets on the wire: LRH (8) and BTH (12), the padded payload, ICRC and VCRC. */
    static int rcOctets(int payloadLength) {
        return 8 + 12 + (payloadLength + 3 & ~3) + CRC_OCTETS;
    }

    /** ICRC (4) and VCRC (2). */
    private static final int CRC_OCTETS = 6;

    /** Counts packets out of a port: one packet alone, or a run of a post list at once. */
    private static void transmitted(Port port, int octets, int packets, boolean multicast) {
        if (packets == 1) {
            port.counters().transmitted(octets, multicast);
        } else {
            port.counters().transmitted(octets, packets, multicast);
        }
    }

    private static void received(Port port, int octets, int packets, boolean multicast) {
        if (packets == 1) {
            port.counters().received(octets, multicast);
        } else {
            port.counters().received(octets, packets, multicast);
        }
    }
}
