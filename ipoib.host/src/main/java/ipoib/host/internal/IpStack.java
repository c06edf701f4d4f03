package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostException;
import ipoib.api.host.HostRoute;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.UdpReceiver;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.codec.DecodeException;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.codec.ip.Udp;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The IP host: builds and parses IPv4 and IPv6 packets in per-thread scratch buffers, picks the
 * interface and source address, hands packets to the resolver of their family (counting
 * {@link TransmitResult#DROPPED_NO_RESOLVER} while there is none), answers echo requests to its
 * addresses, matches echo replies and delivers UDP datagrams to sockets by port.
 */
final class IpStack {
    static final int SCRATCH = 8192;
    static final int DEFAULT_TTL = 64;
    private static final int ECHO_V6 = 1 << 31;

    /** A per-thread buffer with cached slices of every length, so that sending allocates nothing. */
    static final class Scratch {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[SCRATCH]);
        private final MemorySegment[] slices = new MemorySegment[SCRATCH + 1];

        MemorySegment slice(int length) {
            MemorySegment s = slices[length];
            if (s == null) {
                s = buffer.asSlice(0, length);
                slices[length] = s;
            }
            return s;
        }
    }

    private static final ThreadLocal<Scratch> SCRATCHES = ThreadLocal.withInitial(Scratch::new);
    private static final ThreadLocal<Datagram> DATAGRAMS = ThreadLocal.withInitial(Datagram::new);

    final AddressTable table;
    private final Consumer<String> warn;
    private final ConcurrentHashMap<String, IpoibLink> links = new ConcurrentHashMap<>();
    private volatile IpoibLink[] sortedLinks = new IpoibLink[0];
    volatile NeighbourResolver ipv4Resolver;
    volatile NeighbourResolver ipv6Resolver;
    volatile MulticastService multicast;
    volatile int ttl = DEFAULT_TTL;
    volatile boolean answerEcho = true;
    /** Links bridged to the kernel (frame handlers counted by link): their IP traffic is the kernel's. */
    final ConcurrentHashMap<String, Integer> bridged = new ConcurrentHashMap<>();
    private final AtomicInteger identification = new AtomicInteger();
    private final ConcurrentHashMap<Integer, PendingEcho> echoes = new ConcurrentHashMap<>();
    final AtomicReferenceArray<UdpSocketImpl> sockets = new AtomicReferenceArray<>(65536);

    final Counters counters = new Counters();
    private final LongAdder rxIpv4 = counters.counter("ipv4_received");
    private final LongAdder rxIpv6 = counters.counter("ipv6_received");
    private final LongAdder rxMalformed = counters.counter("rx_malformed");
    private final LongAdder rxFragments = counters.counter("rx_fragments_dropped");
    private final LongAdder rxNotForUs = counters.counter("rx_not_for_us");
    private final LongAdder rxBridged = counters.counter("rx_bridged_to_kernel");
    private final LongAdder rxUnknownProtocol = counters.counter("rx_unknown_protocol");
    private final LongAdder echoRequestsIn = counters.counter("echo_requests_received");
    private final LongAdder echoRepliesOut = counters.counter("echo_replies_sent");
    private final LongAdder echoRequestsOut = counters.counter("echo_requests_sent");
    private final LongAdder echoRepliesIn = counters.counter("echo_replies_received");
    private final LongAdder echoUnmatched = counters.counter("echo_replies_unmatched");
    private final LongAdder udpIn = counters.counter("udp_received");
    private final LongAdder udpNoPort = counters.counter("udp_no_port");
    private final LongAdder udpReceiverErrors = counters.counter("udp_receiver_errors");
    private final LongAdder udpOut = counters.counter("udp_sent");
    private final LongAdder txNoRoute = counters.counter("tx_no_route");
    private final LongAdder[] txResults = new LongAdder[TransmitResult.values().length];

    private record PendingEcho(CompletableFuture<EchoReply> reply, long sentNanos, String link) {}

    IpStack(AddressTable table, Consumer<String> warn) {
        this.table = table;
        this.warn = warn;
        for (TransmitResult r : TransmitResult.values()) {
            txResults[r.ordinal()] = counters.counter("tx_" + r.name().toLowerCase(java.util.Locale.ROOT));
        }
    }

    // ---- links ---------------------------------------------------------------------------------------

    void addLink(IpoibLink link) {
        links.put(link.name(), link);
        resort();
    }

    void removeLink(IpoibLink link) {
        links.remove(link.name(), link);
        resort();
    }

    private void resort() {
        IpoibLink[] all = links.values().toArray(new IpoibLink[0]);
        Arrays.sort(all, Comparator.comparing(IpoibLink::name));
        sortedLinks = all;
    }

    IpoibLink link(String name) {
        return name == null ? null : links.get(name);
    }

    List<IpoibLink> links() {
        return List.of(sortedLinks);
    }

    // ---- routes --------------------------------------------------------------------------------------

    private static boolean isLinkLocal6(InetAddress a) {
        return a instanceof Inet6Address && a.isLinkLocalAddress();
    }

    private static boolean isIpv4Broadcast(InetAddress a) {
        return a instanceof Inet4Address && AddressBits.ipv4(a) == -1;
    }

    /** The route to a destination (see {@link ipoib.api.host.IpHost#route}). */
    Optional<HostRoute> route(String linkName, InetAddress destination) {
        if (linkName != null) {
            IpoibLink link = links.get(linkName);
            if (link == null || link.state() != LinkState.UP) {
                return Optional.empty();
            }
            return routeVia(link, destination, true);
        }
        for (IpoibLink link : sortedLinks) {
            if (link.state() == LinkState.UP) {
                Optional<HostRoute> r = routeVia(link, destination, false);
                if (r.isPresent()) {
                    return r;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The route over one link: the usable address of the destination's family that best fits it
     * (its prefix holds the destination, then the same IPv6 scope) is the source. Without a
     * chosen link the destination must be on-link: in that prefix, IPv6 link-local, broadcast or
     * multicast. A destination the link owns itself has no route (no loopback delivery).
     */
    private Optional<HostRoute> routeVia(IpoibLink link, InetAddress destination, boolean chosen) {
        boolean v6 = destination instanceof Inet6Address;
        boolean anyOnLink = (v6 && isLinkLocal6(destination)) || isIpv4Broadcast(destination)
                || destination.isMulticastAddress();
        InterfaceAddress best = null;
        int bestScore = -1;
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.ipv6() != v6 || !a.state().usable()) {
                continue;
            }
            if (a.address().equals(destination)) {
                return Optional.empty();
            }
            int score = (a.contains(destination) ? 4 : 0)
                    + (!v6 || isLinkLocal6(a.address()) == isLinkLocal6(destination) ? 2 : 0);
            if (score > bestScore) {
                best = a;
                bestScore = score;
            }
        }
        if (best == null || !(chosen || anyOnLink || best.contains(destination))) {
            return Optional.empty();
        }
        return Optional.of(new HostRoute(link.name(), best.address(), destination, mtu(link, v6)));
    }

    int mtu(IpoibLink link, boolean v6) {
        NeighbourResolver r = v6 ? ipv6Resolver : ipv4Resolver;
        int m = r == null ? 0 : r.linkMtu(link.name());
        return m > 0 ? m : link.mtu();
    }

    // ---- transmit ------------------------------------------------------------------------------------

    private TransmitResult count(TransmitResult r) {
        txResults[r.ordinal()].increment();
        return r;
    }

    /** Sends a finished IP packet to an on-link next hop through the family's resolver. */
    TransmitResult transmit(IpoibLink link, boolean v6, long nextHopHigh, long nextHopLow, MemorySegment packet) {
        if (!v6 && (int) nextHopLow == -1 || !v6 && table.fast(link.name()).isBroadcast4((int) nextHopLow)) {
            return count(link.sendBroadcast(EtherType.IPV4, packet));
        }
        boolean multicast = v6 ? (nextHopHigh >>> 56) == 0xFF : ((int) nextHopLow >>> 28) == 0xE;
        if (multicast) {
            MulticastService m = multicast();
            if (m == null) {
                return count(TransmitResult.DROPPED_NO_RESOLVER);
            }
            return count(m.send(link, AddressBits.address(v6, nextHopHigh, nextHopLow), v6 ? EtherType.IPV6 : EtherType.IPV4,
                    packet));
        }
        NeighbourResolver r = v6 ? ipv6Resolver : ipv4Resolver;
        if (r == null) {
            return count(TransmitResult.DROPPED_NO_RESOLVER);
        }
        return count(r.send(link, nextHopHigh, nextHopLow, v6 ? EtherType.IPV6 : EtherType.IPV4, packet));
    }

    private MulticastService multicast() {
        return multicast;
    }

    /**
     * Writes the IP header for {@code upperLength} octets of upper-layer data at
     * {@link #upperOffset}: IPv4 with DF set (no fragmentation), or IPv6.
     *
     * @return the packet length
     */
    int writeIp(Scratch s, boolean v6, int protocol, long srcHigh, long srcLow, long dstHigh, long dstLow,
                int upperLength) {
        if (v6) {
            Ipv6Header.write(s.buffer, 0, upperLength, protocol, ttl, srcHigh, srcLow, dstHigh, dstLow);
            return Ipv6Header.LENGTH + upperLength;
        }
        Ipv4Header.write(s.buffer, 0, 0, Ipv4Header.LENGTH + upperLength, identification.getAndIncrement() & 0xFFFF,
                true, ttl, protocol, (int) srcLow, (int) dstLow);
        return Ipv4Header.LENGTH + upperLength;
    }

    static int upperOffset(boolean v6) {
        return v6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH;
    }

    static Scratch scratch() {
        return SCRATCHES.get();
    }

    // ---- echo ----------------------------------------------------------------------------------------

    CompletableFuture<EchoReply> echo(String linkName, InetAddress destination, int identifier, int sequence,
                                      int payloadLength, Duration timeout) {
        if (identifier < 0 || identifier > 0xFFFF || sequence < 0 || sequence > 0xFFFF) {
            throw new IllegalArgumentException("echo identifier " + identifier + " and sequence " + sequence
                    + " must be 0..65535");
        }
        if (payloadLength < 0) {
            throw new IllegalArgumentException("echo payload length " + payloadLength + " is negative");
        }
        boolean v6 = destination instanceof Inet6Address;
        HostRoute route = route(linkName, destination).orElse(null);
        if (route == null) {
            txNoRoute.increment();
            return CompletableFuture.failedFuture(new HostException(noRoute(linkName, destination),
                    TransmitResult.DROPPED_NO_ROUTE));
        }
        int ipLength = upperOffset(v6) + IcmpEcho.HEADER_LENGTH + payloadLength;
        if (ipLength > route.mtu()) {
            throw new IllegalArgumentException("echo request of " + ipLength + " octets does not fit the MTU "
                    + route.mtu() + " of " + route.link() + ": at most " + (route.mtu() - upperOffset(v6)
                    - IcmpEcho.HEADER_LENGTH) + " octets of payload (fragmentation is not supported)");
        }
        IpoibLink link = links.get(route.link());
        int key = (v6 ? ECHO_V6 : 0) | identifier << 16 | sequence;
        CompletableFuture<EchoReply> reply = new CompletableFuture<>();
        PendingEcho pending = new PendingEcho(reply, System.nanoTime(), route.link());
        PendingEcho previous = echoes.put(key, pending);
        if (previous != null) {
            previous.reply().completeExceptionally(new HostException("superseded by a new request with the same "
                    + "identifier and sequence", TransmitResult.DROPPED_NO_ROUTE));
        }
        reply.whenComplete((r, f) -> echoes.remove(key, pending));
        Scratch s = scratch();
        int at = upperOffset(v6) + IcmpEcho.HEADER_LENGTH;
        for (int i = 0; i < payloadLength; i++) {
            s.buffer.set(java.lang.foreign.ValueLayout.JAVA_BYTE, at + i, (byte) (0x10 + i));
        }
        long srcHigh = AddressBits.high(route.source());
        long srcLow = AddressBits.low(route.source());
        long dstHigh = AddressBits.high(destination);
        long dstLow = AddressBits.low(destination);
        int length = writeIp(s, v6, v6 ? Ipv6Header.NEXT_HEADER_ICMPV6 : Ipv4Header.PROTOCOL_ICMP, srcHigh, srcLow,
                dstHigh, dstLow, IcmpEcho.HEADER_LENGTH + payloadLength);
        if (v6) {
            IcmpEcho.writeIpv6(s.buffer, 0, IcmpEcho.TYPE_V6_ECHO_REQUEST, identifier, sequence, payloadLength);
        } else {
            IcmpEcho.writeIpv4(s.buffer, Ipv4Header.LENGTH, IcmpEcho.TYPE_ECHO_REQUEST, identifier, sequence, payloadLength);
        }
        TransmitResult result = transmit(link, v6, dstHigh, dstLow, s.slice(length));
        if (result.isDrop()) {
            reply.completeExceptionally(new HostException("echo request to " + AddressBits.text(destination) + " via "
                    + route.link() + " not sent: " + result + why(result, v6), result));
            return reply;
        }
        echoRequestsOut.increment();
        reply.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return reply;
    }

    static String why(TransmitResult r, boolean v6) {
        return switch (r) {
            case DROPPED_NO_RESOLVER -> " (no " + (v6 ? "IPv6 (nd)" : "IPv4 (arp)") + " resolver running)";
            case DROPPED_NO_ROUTE -> " (resolution failed, or no source address on the interface)";
            case DROPPED_QUEUE_FULL -> " (the neighbour's pending queue is full)";
            case DROPPED_LINK_DOWN -> " (the interface is not UP)";
            default -> "";
        };
    }

    String noRoute(String linkName, InetAddress destination) {
        if (linkName != null) {
            IpoibLink link = links.get(linkName);
            if (link == null) {
                return "no interface '" + linkName + "'";
            }
            if (link.state() != LinkState.UP) {
                return "interface " + linkName + " is " + link.state();
            }
            return "no usable " + (destination instanceof Inet6Address ? "IPv6" : "IPv4") + " address on " + linkName
                    + " for " + AddressBits.text(destination);
        }
        return "no route to " + AddressBits.text(destination)
                + ": no UP interface has an address whose prefix holds it (or it is this host's own address)";
    }

    // ---- receive -------------------------------------------------------------------------------------

    void receiveIpv4(IpoibLink link, ReceivedFrame frame) {
        if (!bridged.isEmpty() && bridged.containsKey(link.name())) {
            rxBridged.increment();
            return;
        }
        rxIpv4.increment();
        MemorySegment b = frame.buffer();
        long off = frame.payloadOffset();
        int h;
        try {
            h = Ipv4Header.validate(b, off, frame.payloadLength());
        } catch (DecodeException e) {
            rxMalformed.increment();
            return;
        }
        if (Ipv4Header.isFragment(b, off)) {
            rxFragments.increment();
            return;
        }
        int dst = Ipv4Header.destination(b, off);
        AddressTable.Fast mine = table.fast(link.name());
        boolean local = mine.isLocal4(dst);
        if (!local && dst != -1 && (dst >>> 28) != 0xE && !mine.isBroadcast4(dst)) {
            rxNotForUs.increment();
            return;
        }
        int total = Ipv4Header.totalLength(b, off);
        switch (Ipv4Header.protocol(b, off)) {
            case Ipv4Header.PROTOCOL_ICMP -> icmp4(link, b, off, h, total - h, local);
            case Ipv4Header.PROTOCOL_UDP -> {
                int length;
                try {
                    length = Udp.validateIpv4(b, off, h, total - h);
                } catch (DecodeException e) {
                    rxMalformed.increment();
                    return;
                }
                deliver(link, false, b, off, off + h, length);
            }
            default -> rxUnknownProtocol.increment();
        }
    }

    private void icmp4(IpoibLink link, MemorySegment b, long ip, int h, int length, boolean local) {
        long icmp = ip + h;
        try {
            IcmpEcho.validateIpv4(b, icmp, length);
        } catch (DecodeException e) {
            rxMalformed.increment();
            return;
        }
        if (!IcmpEcho.isEchoLength(length) || IcmpEcho.code(b, icmp) != 0) {
            return;
        }
        int type = IcmpEcho.type(b, icmp);
        if (type == IcmpEcho.TYPE_ECHO_REQUEST && local) {
            echoRequestsIn.increment();
            if (!answerEcho) {
                return;
            }
            int data = length - IcmpEcho.HEADER_LENGTH;
            Scratch s = scratch();
            MemorySegment.copy(b, icmp + IcmpEcho.HEADER_LENGTH, s.buffer, Ipv4Header.LENGTH + IcmpEcho.HEADER_LENGTH, data);
            int src = Ipv4Header.source(b, ip);
            int me = Ipv4Header.destination(b, ip);
            int packet = writeIp(s, false, Ipv4Header.PROTOCOL_ICMP, 0, me, 0, src, IcmpEcho.HEADER_LENGTH + data);
            IcmpEcho.writeIpv4(s.buffer, Ipv4Header.LENGTH, IcmpEcho.TYPE_ECHO_REPLY, IcmpEcho.identifier(b, icmp),
                    IcmpEcho.sequence(b, icmp), data);
            if (!transmit(link, false, 0, src & 0xFFFF_FFFFL, s.slice(packet)).isDrop()) {
                echoRepliesOut.increment();
            }
        } else if (type == IcmpEcho.TYPE_ECHO_REPLY) {
            echoReply(link, false, b, icmp, length, Ipv4Header.ttl(b, ip),
                    () -> AddressBits.ipv4(Ipv4Header.source(b, ip)));
        }
    }

    void receiveIpv6(IpoibLink link, ReceivedFrame frame) {
        if (!bridged.isEmpty() && bridged.containsKey(link.name())) {
            rxBridged.increment();
            return;
        }
        MemorySegment b = frame.buffer();
        long off = frame.payloadOffset();
        int payload;
        try {
            payload = Ipv6Header.validate(b, off, frame.payloadLength());
        } catch (DecodeException e) {
            rxIpv6.increment();
            rxMalformed.increment();
            return;
        }
        int next = Ipv6Header.nextHeader(b, off);
        long icmp = off + Ipv6Header.LENGTH;
        if (next == Ipv6Header.NEXT_HEADER_ICMPV6 && payload > 0) {
            int type = IcmpEcho.type(b, icmp);
            if (type >= 133 && type <= 137) {
                return; // Neighbor Discovery: the nd bundle's
            }
        }
        rxIpv6.increment();
        long dstHigh = Ipv6Header.destinationHigh(b, off);
        long dstLow = Ipv6Header.destinationLow(b, off);
        boolean local = table.fast(link.name()).isLocal6(dstHigh, dstLow);
        if (!local && (dstHigh >>> 56) != 0xFF) {
            rxNotForUs.increment();
            return;
        }
        switch (next) {
            case Ipv6Header.NEXT_HEADER_ICMPV6 -> icmp6(link, b, off, payload, local);
            case Ipv6Header.NEXT_HEADER_UDP -> {
                int length;
                try {
                    length = Udp.validateIpv6(b, off, payload);
                } catch (DecodeException e) {
                    rxMalformed.increment();
                    return;
                }
                deliver(link, true, b, off, icmp, length);
            }
            default -> rxUnknownProtocol.increment();
        }
    }

    private void icmp6(IpoibLink link, MemorySegment b, long ip, int length, boolean local) {
        long icmp = ip + Ipv6Header.LENGTH;
        try {
            IcmpEcho.validateIpv6(b, ip, length);
        } catch (DecodeException e) {
            rxMalformed.increment();
            return;
        }
        if (!IcmpEcho.isEchoLength(length) || IcmpEcho.code(b, icmp) != 0) {
            return;
        }
        int type = IcmpEcho.type(b, icmp);
        if (type == IcmpEcho.TYPE_V6_ECHO_REQUEST && local) {
            echoRequestsIn.increment();
            if (!answerEcho) {
                return;
            }
            int data = length - IcmpEcho.HEADER_LENGTH;
            Scratch s = scratch();
            MemorySegment.copy(b, icmp + IcmpEcho.HEADER_LENGTH, s.buffer, Ipv6Header.LENGTH + IcmpEcho.HEADER_LENGTH, data);
            long srcHigh = Ipv6Header.sourceHigh(b, ip);
            long srcLow = Ipv6Header.sourceLow(b, ip);
            int packet = writeIp(s, true, Ipv6Header.NEXT_HEADER_ICMPV6, Ipv6Header.destinationHigh(b, ip),
                    Ipv6Header.destinationLow(b, ip), srcHigh, srcLow, IcmpEcho.HEADER_LENGTH + data);
            IcmpEcho.writeIpv6(s.buffer, 0, IcmpEcho.TYPE_V6_ECHO_REPLY, IcmpEcho.identifier(b, icmp),
                    IcmpEcho.sequence(b, icmp), data);
            if (!transmit(link, true, srcHigh, srcLow, s.slice(packet)).isDrop()) {
                echoRepliesOut.increment();
            }
        } else if (type == IcmpEcho.TYPE_V6_ECHO_REPLY) {
            echoReply(link, true, b, icmp, length, Ipv6Header.hopLimit(b, ip),
                    () -> AddressBits.ipv6(Ipv6Header.sourceHigh(b, ip), Ipv6Header.sourceLow(b, ip)));
        }
    }

    private void echoReply(IpoibLink link, boolean v6, MemorySegment b, long icmp, int length, int ttl,
                           java.util.function.Supplier<InetAddress> from) {
        int key = (v6 ? ECHO_V6 : 0) | IcmpEcho.identifier(b, icmp) << 16 | IcmpEcho.sequence(b, icmp);
        PendingEcho pending = echoes.get(key);
        if (pending == null) {
            echoUnmatched.increment();
            return;
        }
        echoRepliesIn.increment();
        long rtt = System.nanoTime() - pending.sentNanos();
        pending.reply().complete(new EchoReply(link.name(), from.get(), IcmpEcho.identifier(b, icmp),
                IcmpEcho.sequence(b, icmp), length - IcmpEcho.HEADER_LENGTH, ttl, Duration.ofNanos(rtt)));
    }

    // ---- UDP -----------------------------------------------------------------------------------------

    private void deliver(IpoibLink link, boolean v6, MemorySegment b, long ip, long udp, int length) {
        int port = Udp.destinationPort(b, udp);
        UdpSocketImpl socket = sockets.get(port);
        if (socket == null) {
            udpNoPort.increment();
            return;
        }
        udpIn.increment();
        Datagram d = DATAGRAMS.get();
        d.set(link.name(), v6, b, ip, udp, length);
        UdpReceiver receiver = socket.receiver;
        try {
            receiver.received(d);
        } catch (RuntimeException e) {
            udpReceiverErrors.increment();
            warn.accept("UDP receiver on port " + port + " failed: " + e);
        }
    }

    void udpSent() {
        udpOut.increment();
    }

    void noRouteCounted() {
        txNoRoute.increment();
    }

    /** The thread's reusable view of a received datagram. */
    static final class Datagram implements ipoib.api.host.UdpDatagram {
        private String link;
        private boolean v6;
        private MemorySegment buffer;
        private long ip;
        private long udp;
        private int length;

        void set(String link, boolean v6, MemorySegment buffer, long ip, long udp, int length) {
            this.link = link;
            this.v6 = v6;
            this.buffer = buffer;
            this.ip = ip;
            this.udp = udp;
            this.length = length;
        }

        @Override
        public String link() {
            return link;
        }

        @Override
        public InetAddress source() {
            return v6 ? AddressBits.ipv6(Ipv6Header.sourceHigh(buffer, ip), Ipv6Header.sourceLow(buffer, ip))
                    : AddressBits.ipv4(Ipv4Header.source(buffer, ip));
        }

        @Override
        public int sourcePort() {
            return Udp.sourcePort(buffer, udp);
        }

        @Override
        public InetAddress destination() {
            return v6 ? AddressBits.ipv6(Ipv6Header.destinationHigh(buffer, ip), Ipv6Header.destinationLow(buffer, ip))
                    : AddressBits.ipv4(Ipv4Header.destination(buffer, ip));
        }

        @Override
        public int destinationPort() {
            return Udp.destinationPort(buffer, udp);
        }

        @Override
        public MemorySegment buffer() {
            return buffer;
        }

        @Override
        public long payloadOffset() {
            return udp + Udp.HEADER_LENGTH;
        }

        @Override
        public int payloadLength() {
            return length - Udp.HEADER_LENGTH;
        }
    }

    Map<String, Long> counterSnapshot() {
        return counters.snapshot();
    }

    /** Fails the echoes still waiting (the host is stopping). */
    void close() {
        HostException stopped = new HostException("the host layer stopped", TransmitResult.DROPPED_LINK_DOWN);
        for (PendingEcho p : echoes.values()) {
            p.reply().completeExceptionally(stopped);
        }
        echoes.clear();
    }
}
