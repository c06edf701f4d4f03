package ipoib.arp.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.DecodeException;
import ipoib.codec.arp.ArpCodec;
import ipoib.codec.arp.ArpOperation;
import ipoib.codec.arp.ArpPacket;
import ipoib.codec.ip.Ipv4Header;
import ipoib.neighbour.LogLines;
import ipoib.neighbour.NeighbourEngine;
import ipoib.neighbour.OwnAddresses;
import ipoib.neighbour.Protocol;
import ipoib.neighbour.Route;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The ARP packets (RFC 826 with IPoIB's 20-octet hardware address, RFC 4391 §9.2): requests to
 * the broadcast group (the neighbour table's {@link Protocol}, or unicast to probe a cached
 * entry), replies unicast to the requester through its neighbour entry, gratuitous ARP, and what
 * a received packet teaches (RFC 826's merge: an existing entry is updated, one is created when
 * the packet is meant for us). Only addresses of the interface the packet arrived on are answered
 * for, so that two interfaces of this host on one IPoIB link stay distinct.
 */
final class ArpMessages implements Protocol {
    private final ControlLoop control;
    private final Reporter reporter;
    private final NeighbourEngine neighbours;
    private final RateLimiter malformedLog;
    private final RateLimiter conflictLog;
    volatile InterfaceAddresses addresses;
    volatile boolean gratuitous;

    private final InterfaceCounters.Counter requestsIn;
    private final InterfaceCounters.Counter repliesIn;
    private final InterfaceCounters.Counter requestsOut;
    private final InterfaceCounters.Counter repliesOut;
    private final InterfaceCounters.Counter gratuitousOut;
    private final InterfaceCounters.Counter announcementsIn;
    private final InterfaceCounters.Counter malformed;
    private final InterfaceCounters.Counter ignored;
    private final InterfaceCounters.Counter conflicts;

    /** @param neighbours the table this protocol serves (it reaches this protocol through a {@link ipoib.neighbour.DeferredProtocol}) */
    ArpMessages(boolean gratuitous, NeighbourEngine neighbours, InterfaceCounters counters, ControlLoop control,
                Reporter reporter) {
        this.gratuitous = gratuitous;
        this.neighbours = neighbours;
        this.control = control;
        this.reporter = reporter;
        this.malformedLog = new RateLimiter(control.clock(), 10, TimeUnit.SECONDS);
        this.conflictLog = new RateLimiter(control.clock(), 10, TimeUnit.SECONDS);
        requestsIn = counters.counter("requests_received");
        repliesIn = counters.counter("replies_received");
        requestsOut = counters.counter("requests_sent");
        repliesOut = counters.counter("replies_sent");
        gratuitousOut = counters.counter("gratuitous_sent");
        announcementsIn = counters.counter("announcements_heard");
        malformed = counters.counter("rx_malformed");
        ignored = counters.counter("rx_ignored");
        conflicts = counters.counter("address_conflicts");
    }

    // ---- gratuitous ARP (control loop) ------------------------------------------------------------------

    /** Announces every usable IPv4 address of the link, on the control loop. */
    void announceAll(IpoibLink link) {
        control.execute(() -> {
            for (InterfaceAddress a : usable(link)) {
                announce(link, AddressBits.ipv4(a.address()));
            }
        });
    }

    /** A gratuitous ARP request (sender and target protocol address both ours), to the broadcast group. */
    void announce(IpoibLink link, int ip) {
        LinkAddress self = link.address();
        if (!gratuitous || self == null) {
            return;
        }
        ArpPacket packet = new ArpPacket(ArpOperation.REQUEST, self, ip, ArpPacket.UNKNOWN_HARDWARE_ADDRESS, ip);
        if (!link.sendBroadcast(EtherType.ARP, encode(packet)).isDrop()) {
            gratuitousOut.increment(link.name());
        }
    }

    // ---- the table's protocol --------------------------------------------------------------------------

    @Override
    public String solicit(IpoibLink link, long high, long low, Route unicast) {
        int target = (int) low;
        LinkAddress self = link.address();
        if (self == null) {
            return "interface " + link.name() + " is not UP";
        }
        int source = source(usable(link), target);
        if (source == 0) {
            return "no IPv4 address on " + link.name() + " to send ARP requests from";
        }
        MemorySegment packet = encode(ArpPacket.request(self, source, target));
        TransmitResult result = unicast == null ? link.sendBroadcast(EtherType.ARP, packet)
                : link.sendUnicast(unicast.path(), unicast.qpn(), EtherType.ARP, packet);
        if (!result.isDrop()) {
            requestsOut.increment(link.name());
        }
        // A request the link dropped is retransmitted like a lost one.
        return null;
    }

    @Override
    public String notANeighbour(String linkName, long high, long low) {
        return OwnAddresses.notANeighbour(addresses, linkName, AddressBits.address(false, high, low));
    }

    @Override
    public String cannotResolve(IpoibLink link, long high, long low) {
        if (addresses == null) {
            return "no interface addresses (the host layer is not running)";
        }
        if (usable(link).isEmpty()) {
            return "no IPv4 address on " + link.name();
        }
        return null;
    }

    private static MemorySegment encode(ArpPacket packet) {
        MemorySegment segment = MemorySegment.ofArray(new byte[ArpCodec.LENGTH]);
        ArpCodec.encode(segment, 0, packet);
        return segment;
    }

    // ---- receive (the link's receive thread) ------------------------------------------------------------

    /** A received ARP packet. */
    void onFrame(IpoibLink link, ReceivedFrame frame) {
        ArpPacket packet;
        try {
            packet = ArpCodec.decode(frame.buffer().asSlice(frame.payloadOffset(), frame.payloadLength()), 0,
                    frame.etherType());
        } catch (DecodeException e) {
            malformed.increment(link.name());
            String line = LogLines.limit(malformedLog, "malformed ARP packet on " + link.name() + " from QPN "
                    + String.format("0x%06x", frame.sourceQpn()) + ": " + e.getMessage());
            if (line != null) {
                reporter.debug(line);
            }
            return;
        }
        LinkAddress self = link.address();
        if (self == null || (packet.operation() != ArpOperation.REQUEST && packet.operation() != ArpOperation.REPLY)) {
            ignored.increment(link.name());
            return;
        }
        LinkAddress sender = packet.senderHardwareAddress().withoutFlags();
        if (sender.isMulticast() || sender.gid().isMulticast() || sender.equals(self.withoutFlags())) {
            ignored.increment(link.name());
            return;
        }
        if (packet.operation() == ArpOperation.REPLY) {
            repliesIn.increment(link.name());
        } else {
            requestsIn.increment(link.name());
        }
        int spa = packet.senderProtocolAddress();
        int tpa = packet.targetProtocolAddress();
        List<InterfaceAddress> mine = usable(link);
        if (spa == 0) {
            // An address probe (RFC 5227): nothing to learn.
            ignored.increment(link.name());
            return;
        }
        if (contains(mine, spa)) {
            conflicts.increment(link.name());
            String line = LogLines.limit(conflictLog, "address conflict on " + link.name() + ": " + Ipv4Header.text(spa)
                    + " is ours, but " + sender + " claims it");
            if (line != null) {
                reporter.warn(line);
            }
            return;
        }
        boolean forMe = contains(mine, tpa);
        long key = spa & 0xFFFF_FFFFL;
        // With its capability flags: the table keys on the address without them, the route carries them.
        neighbours.learn(link, 0, key, packet.senderHardwareAddress(), forMe,
                forMe && packet.operation() == ArpOperation.REPLY);
        if (spa == tpa && neighbours.announced(link, 0, key)) {
            announcementsIn.increment(link.name()); // a gratuitous ARP: the sender's path may have changed
        }
        if (forMe && packet.operation() == ArpOperation.REQUEST) {
            TransmitResult result = neighbours.send(link, 0, key, EtherType.ARP, encode(ArpPacket.replyTo(packet, self)));
            if (!result.isDrop()) {
                repliesOut.increment(link.name());
            }
        }
    }

    // ---- addresses ----------------------------------------------------------------------------------------

    /** The usable IPv4 addresses of a link. */
    private List<InterfaceAddress> usable(IpoibLink link) {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return List.of();
        }
        return table.addresses(link.name()).stream().filter(a -> !a.ipv6() && a.state().usable()).toList();
    }

    private static boolean contains(List<InterfaceAddress> list, int ip) {
        for (InterfaceAddress a : list) {
            if (AddressBits.ipv4(a.address()) == ip) {
                return true;
            }
        }
        return false;
    }

    /** The source of a request for {@code target}: an address whose prefix holds it, else the first; 0 when none. */
    private int source(List<InterfaceAddress> mine, int target) {
        InetAddress t = AddressBits.ipv4(target);
        for (InterfaceAddress a : mine) {
            if (a.contains(t)) {
                return AddressBits.ipv4(a.address());
            }
        }
        return mine.isEmpty() ? 0 : AddressBits.ipv4(mine.get(0).address());
    }
}
