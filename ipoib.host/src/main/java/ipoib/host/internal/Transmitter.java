package ipoib.host.internal;

import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourSender;
import ipoib.api.resolve.NextHopKind;
import ipoib.runtime.InterfaceThreadCounters;
import ipoib.runtime.PerThread;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Hands a finished IP packet to its next hop on a link: broadcasts to the broadcast group,
 * multicast to the multicast manager, unicast to the family's resolver. Counts every outcome
 * ({@code tx_sent}, {@code tx_dropped_no_resolver}, ...). No routing here: the caller chose the link.
 */
final class Transmitter {
    private final AddressTable table;
    private final NextHops nextHops;
    private final InterfaceThreadCounters perPacket;
    /** Each sending thread's view of {@link #perPacket} (not a ThreadLocal: threads of other bundles send). */
    private final PerThread<InterfaceThreadCounters.Local> locals;
    /** The counter of each result in {@link #perPacket}, by ordinal. */
    private final int[] results = new int[TransmitResult.values().length];

    Transmitter(AddressTable table, NextHops nextHops, InterfaceThreadCounters perPacket) {
        this.table = table;
        this.nextHops = nextHops;
        this.perPacket = perPacket;
        this.locals = new PerThread<>(perPacket::local);
        for (TransmitResult r : TransmitResult.values()) {
            results[r.ordinal()] = perPacket.counter("tx_" + r.name().toLowerCase(Locale.ROOT));
        }
    }

    private TransmitResult count(IpoibLink link, TransmitResult r) {
        locals.get().of(link.name()).increment(results[r.ordinal()]);
        return r;
    }

    /**
     * Whether a next hop on a link is its broadcast group, a multicast group or a neighbour (with
     * the link's addresses now): the decision every sender on a link shares, {@link NextHopKind#of}.
     */
    NextHopKind kind(IpoibLink link, boolean v6, long nextHopHigh, long nextHopLow) {
        return NextHopKind.of(v6, nextHopHigh, nextHopLow, table.fast(link.name()));
    }

    /** Sends a finished IP packet to an on-link next hop (its address in {@link AddressBits} form). */
    TransmitResult transmit(IpoibLink link, boolean v6, long nextHopHigh, long nextHopLow, MemorySegment packet) {
        return transmit(link, kind(link, v6, nextHopHigh, nextHopLow), v6, nextHopHigh, nextHopLow, packet);
    }

    /**
     * Sends a finished IP packet to a next hop of a {@link #kind} decided before (a connected
     * socket decides it once per route, not per datagram).
     */
    TransmitResult transmit(IpoibLink link, NextHopKind kind, boolean v6, long nextHopHigh, long nextHopLow,
                            MemorySegment packet) {
        if (kind == NextHopKind.BROADCAST) {
            return count(link, link.sendBroadcast(EtherType.IPV4, packet));
        }
        int etherType = v6 ? EtherType.IPV6 : EtherType.IPV4;
        if (kind == NextHopKind.MULTICAST) {
            MulticastService m = nextHops.multicast;
            if (m == null) {
                return count(link, TransmitResult.DROPPED_NO_RESOLVER);
            }
            return count(link, m.send(link, AddressBits.address(v6, nextHopHigh, nextHopLow), etherType, packet));
        }
        NeighbourResolver r = nextHops.resolver(v6);
        if (r == null) {
            return count(link, TransmitResult.DROPPED_NO_RESOLVER);
        }
        return count(link, r.send(link, nextHopHigh, nextHopLow, etherType, packet));
    }

    /**
     * A sender bound to a unicast next hop by the family's resolver (a connected socket keeps it
     * with its route), or null when there is no resolver now.
     */
    NeighbourSender neighbour(IpoibLink link, boolean v6, long nextHopHigh, long nextHopLow) {
        NeighbourResolver r = nextHops.resolver(v6);
        return r == null ? null : r.sender(link, nextHopHigh, nextHopLow);
    }

    /**
     * {@link #transmit(IpoibLink, NextHopKind, boolean, long, long, MemorySegment)} through a bound
     * neighbour sender when there is one (unicast only), counted in the caller's cells.
     */
    TransmitResult transmit(InterfaceThreadCounters.Local cells, IpoibLink link, NextHopKind kind, NeighbourSender neighbour,
                            boolean v6, long nextHopHigh, long nextHopLow, MemorySegment packet) {
        if (kind == NextHopKind.UNICAST && neighbour != null) {
            TransmitResult r = neighbour.send(v6 ? EtherType.IPV6 : EtherType.IPV4, packet);
            cells.of(link.name()).increment(results[r.ordinal()]);
            return r;
        }
        return transmit(link, kind, v6, nextHopHigh, nextHopLow, packet);
    }

    /** Why a packet was dropped, for the messages of echo and the shell. */
    static String why(TransmitResult r, boolean v6) {
        return switch (r) {
            case DROPPED_NO_RESOLVER -> " (no " + (v6 ? "IPv6 (nd)" : "IPv4 (arp)") + " resolver running)";
            case DROPPED_NO_ROUTE -> " (resolution failed, or no source address on the interface)";
            case DROPPED_QUEUE_FULL -> " (the neighbour's pending queue is full)";
            case DROPPED_TABLE_FULL -> " (the neighbour table is full of entries that are resolving or permanent)";
            case DROPPED_LINK_DOWN -> " (the interface is not UP)";
            default -> "";
        };
    }
}
