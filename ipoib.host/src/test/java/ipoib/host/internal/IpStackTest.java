package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.EchoReply;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.Port;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The host's routes, echo and UDP over fake links and a fake resolver that records what it is given. */
class IpStackTest {

    static final class Link implements IpoibLink {
        final String name;
        final List<byte[]> broadcasts = new ArrayList<>();
        /** Bursts begun and ended, whether one is open, and whether beginBurst grants one. */
        int bursts;
        int burstsEnded;
        boolean inBurst;
        boolean grantsBursts = true;
        /** The link MTU (connected mode raises it); 0 while the link is not UP, as the link's. */
        volatile int mtu = 2044;
        volatile LinkState state = LinkState.UP;

        Link(String name) {
            this.name = name;
        }

        @Override
        public boolean beginBurst() {
            if (!grantsBursts) {
                return false;
            }
            bursts++;
            inBurst = true;
            return true;
        }

        @Override
        public void endBurst() {
            burstsEnded++;
            inBurst = false;
        }

        @Override public String name() { return name; }
        @Override public LinkState state() { return state; }
        @Override public String stateReason() { return "test"; }
        @Override public Port port() { return null; }
        @Override public PKey pkey() { return PKey.DEFAULT; }
        @Override public Mgid broadcastGid() { return Mgid.parse("ff12:401b:ffff::ffff:ffff"); }
        @Override public LinkAddress address() { return LinkAddress.of(Qpn.of(1), Gid.ZERO); }
        @Override public Gid gid() { return Gid.ZERO; }
        @Override public int mtu() { return state == LinkState.UP ? mtu : 0; }
        @Override public QKey qkey() { return QKey.of(0x0b1b); }
        @Override public int serviceLevel() { return 0; }
        @Override public LinkCounters counters() { return null; }
        @Override public Map<String, Long> dropCounters() { return Map.of(); }
        @Override public Qpn qpn() { return Qpn.of(1); }
        @Override public TransmitResult sendUnicast(ipoib.api.link.LinkPath d, Qpn q, int e, MemorySegment p) { return TransmitResult.SENT; }
        @Override public TransmitResult sendMulticast(Mgid g, int e, MemorySegment p) { return TransmitResult.SENT; }

        @Override
        public TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
            broadcasts.add(payload.toArray(ValueLayout.JAVA_BYTE));
            return TransmitResult.SENT;
        }

        @Override
        public java.util.concurrent.CompletionStage<ipoib.api.link.LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath) {
            return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException("no paths"));
        }

        @Override
        public Map<Gid, PathRecord> paths() {
            return Map.of();
        }
    }

    /** Records what it is asked to send; with {@code record} off it only counts. */
    static class Resolver implements NeighbourResolver {
        record Sent(IpoibLink link, long high, long low, int etherType, byte[] packet) {}

        final List<Sent> sent = new ArrayList<>();
        /** For each packet: whether its link had a burst open when it was handed over. */
        final List<Boolean> inBurst = new ArrayList<>();
        boolean record = true;
        long count;
        /** Senders bound by connected sockets, and the frames sent through them. */
        int senders;
        long boundSends;

        @Override
        public ipoib.api.resolve.NeighbourSender sender(IpoibLink link, long high, long low) {
            senders++;
            return (etherType, packet) -> {
                boundSends++;
                return send(link, high, low, etherType, packet);
            };
        }

        @Override
        public TransmitResult send(IpoibLink link, InetAddress nextHop, int etherType, MemorySegment packet) {
            throw new AssertionError("the host uses the allocation-free form");
        }

        @Override
        public TransmitResult send(IpoibLink link, long high, long low, int etherType, MemorySegment packet) {
            count++;
            if (record) {
                inBurst.add(link instanceof Link l && l.inBurst);
                sent.add(new Sent(link, high, low, etherType, packet.toArray(ValueLayout.JAVA_BYTE)));
            }
            return TransmitResult.SENT;
        }

        @Override public PathInfoAnswer pathInfo(String linkName, InetAddress destination) { return null; }
        @Override public List<NeighbourEntry> neighbours(String linkName) { return List.of(); }
        @Override public int flush(String linkName) { return 0; }
        @Override public void addPermanent(String l, InetAddress a, LinkAddress la) { }
        @Override public boolean remove(String linkName, InetAddress address) { return false; }
        /** The MTU the resolver reports for every link (ARP reports the link's). */
        int mtu = 2044;

        @Override public int linkMtu(String linkName) { return mtu; }
        @Override public Map<String, Long> counters() { return Map.of(); }
    }

    static final class Frame implements ReceivedFrame {
        final MemorySegment buffer;
        final int etherType;

        Frame(byte[] packet, int etherType) {
            this.buffer = MemorySegment.ofArray(packet);
            this.etherType = etherType;
        }

        @Override public int etherType() { return etherType; }
        @Override public MemorySegment buffer() { return buffer; }
        @Override public long payloadOffset() { return 0; }
        @Override public int payloadLength() { return (int) buffer.byteSize(); }
        @Override public int sourceQpn() { return 2; }
        @Override public int sourceLid() { return 2; }
        @Override public boolean grhPresent() { return false; }
        @Override public Gid sourceGid() { return null; }
        @Override public Gid destinationGid() { return null; }
        @Override public boolean multicast() { return false; }
    }

    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, message -> { });
    final Link a = new Link("a");
    final Link b = new Link("b");
    final Resolver resolver = new Resolver();

    static InetAddress ip(String text) throws Exception {
        return InetAddress.getByName(text);
    }

    @BeforeEach
    void setUp() throws Exception {
        stack.addLink(a);
        stack.addLink(b);
        stack.resolver(false, resolver);
        stack.resolver(true, resolver);
        table.add("a", ip("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        table.add("b", ip("10.0.0.2"), 24, AddressOrigin.MANUAL, null);
        table.add("a", ip("fe80::1"), 64, AddressOrigin.LINK_LOCAL, null);
        table.add("b", ip("fe80::2"), 64, AddressOrigin.LINK_LOCAL, null);
        table.setState("a", ip("fe80::1"), AddressState.PREFERRED);
        table.setState("b", ip("fe80::2"), AddressState.PREFERRED);
    }

    @Test
    void routesGoOnLinkAndNeverToTheOwner() throws Exception {
        assertEquals("a", stack.route(null, ip("10.0.0.2")).orElseThrow().link());
        assertEquals(ip("10.0.0.1"), stack.route(null, ip("10.0.0.2")).orElseThrow().source());
        assertEquals("b", stack.route(null, ip("10.0.0.1")).orElseThrow().link(), "a owns 10.0.0.1: via b");
        assertTrue(stack.route(null, ip("10.9.9.9")).isEmpty(), "off-link");
        assertEquals("b", stack.route("b", ip("10.9.9.9")).orElseThrow().link(), "a chosen interface sends anyway");
        assertTrue(stack.route("a", ip("10.0.0.1")).isEmpty(), "no loopback delivery");
        assertEquals("a", stack.route(null, ip("fe80::2")).orElseThrow().link());
        assertEquals(ip("fe80::1"), stack.route(null, ip("fe80::2")).orElseThrow().source());
        assertEquals(2044, stack.route(null, ip("fe80::2")).orElseThrow().mtu());
        table.setState("a", ip("fe80::1"), AddressState.TENTATIVE);
        assertEquals("b", stack.route(null, ip("fe80::9")).orElseThrow().link(), "tentative addresses are not used");
    }

    @Test
    void echoRequestsAreAnsweredAndRepliesMatched() throws Exception {
        CompletableFuture<EchoReply> reply = stack.echo(null, ip("10.0.0.2"), 7, 1, 24, Duration.ofSeconds(5));
        Resolver.Sent request = resolver.sent.remove(0);
        assertEquals(a, request.link());
        assertEquals(0x0A000002, request.low());
        assertEquals(EtherType.IPV4, request.etherType());
        // b receives the request and answers through the resolver
        stack.ipv4Handler().onFrame(b, new Frame(request.packet(), EtherType.IPV4));
        Resolver.Sent answer = resolver.sent.remove(0);
        assertEquals(b, answer.link());
        assertEquals(0x0A000001, answer.low());
        MemorySegment s = MemorySegment.ofArray(answer.packet());
        assertEquals(20, Ipv4Header.validate(s, 0, s.byteSize()));
        assertEquals(0x0A000002, Ipv4Header.source(s, 0));
        IcmpEcho.validateIpv4(s, 20, answer.packet().length - 20);
        assertEquals(IcmpEcho.TYPE_ECHO_REPLY, IcmpEcho.type(s, 20));
        assertEquals(7, IcmpEcho.identifier(s, 20));
        // a receives the reply
        stack.ipv4Handler().onFrame(a, new Frame(answer.packet(), EtherType.IPV4));
        EchoReply r = reply.get(1, TimeUnit.SECONDS);
        assertEquals(ip("10.0.0.2"), r.from());
        assertEquals(24, r.length());
        assertEquals(1, stack.counters().get("echo_replies_received"));
    }

    @Test
    void ipv6EchoRoundTrip() throws Exception {
        CompletableFuture<EchoReply> reply = stack.echo("a", ip("fe80::2"), 9, 3, 8, Duration.ofSeconds(5));
        Resolver.Sent request = resolver.sent.remove(0);
        assertEquals(0xfe80_0000_0000_0000L, request.high());
        stack.ipv6Handler().onFrame(b, new Frame(request.packet(), EtherType.IPV6));
        Resolver.Sent answer = resolver.sent.remove(0);
        assertEquals(1L, answer.low());
        stack.ipv6Handler().onFrame(a, new Frame(answer.packet(), EtherType.IPV6));
        assertEquals(ip("fe80::2"), reply.get(1, TimeUnit.SECONDS).from());
    }

    /** An echo request from {@code from} to {@code to} with 8 octets of data, as it arrives. */
    private static byte[] echoRequest(String from, String to) throws Exception {
        byte[] src = ip(from).getAddress();
        byte[] dst = ip(to).getAddress();
        boolean v6 = src.length == 16;
        java.nio.ByteBuffer s = java.nio.ByteBuffer.wrap(src);
        java.nio.ByteBuffer d = java.nio.ByteBuffer.wrap(dst);
        PacketWriter.Scratch scratch = PacketWriter.scratch();
        int length = v6
                ? new PacketWriter().writeIp(scratch, true, Ipv6Header.NEXT_HEADER_ICMPV6, s.getLong(), s.getLong(),
                        d.getLong(), d.getLong(), IcmpEcho.HEADER_LENGTH + 8)
                : new PacketWriter().writeIp(scratch, false, Ipv4Header.PROTOCOL_ICMP, 0, s.getInt() & 0xFFFF_FFFFL, 0,
                        d.getInt() & 0xFFFF_FFFFL, IcmpEcho.HEADER_LENGTH + 8);
        if (v6) {
            IcmpEcho.writeIpv6(scratch.buffer, 0, IcmpEcho.TYPE_V6_ECHO_REQUEST, 77, 1, 8);
        } else {
            IcmpEcho.writeIpv4(scratch.buffer, Ipv4Header.LENGTH, IcmpEcho.TYPE_ECHO_REQUEST, 77, 1, 8);
        }
        return scratch.slice(length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    /**
     * Echo to a group follows Linux's defaults (IPv6 echo to ff02::1 answered,
     * net.ipv6.icmp.echo_ignore_multicast 0; IPv4 echo to 224.0.0.1 or the subnet broadcast not,
     * net.ipv4.icmp_echo_ignore_broadcasts 1), and the host's two properties turn each around. An
     * answer comes from the receiving link's own address, to the requester.
     */
    @Test
    void echoToAGroupFollowsLinuxsDefaultsAndTheProperties() throws Exception {
        byte[] allNodes = echoRequest("fe80::1", "ff02::1");
        byte[] allHosts = echoRequest("10.0.0.1", "224.0.0.1");
        byte[] broadcast = echoRequest("10.0.0.1", "10.0.0.255");

        stack.ipv6Handler().onFrame(b, new Frame(allNodes, EtherType.IPV6));
        assertEquals(1, resolver.sent.size(), "the all-nodes echo is answered by default");
        Resolver.Sent v6 = resolver.sent.remove(0);
        MemorySegment r6 = MemorySegment.ofArray(v6.packet());
        assertEquals(b, v6.link());
        assertEquals(1L, v6.low(), "to the requester fe80::1");
        assertEquals(0xfe80_0000_0000_0000L, Ipv6Header.sourceHigh(r6, 0));
        assertEquals(2L, Ipv6Header.sourceLow(r6, 0), "from b's own fe80::2, not from ff02::1");
        assertEquals(IcmpEcho.TYPE_V6_ECHO_REPLY, IcmpEcho.type(r6, Ipv6Header.LENGTH));
        stack.ipv4Handler().onFrame(b, new Frame(allHosts, EtherType.IPV4));
        stack.ipv4Handler().onFrame(b, new Frame(broadcast, EtherType.IPV4));
        assertTrue(resolver.sent.isEmpty(), "IPv4 echo to a group or the broadcast address is ignored by default");
        assertEquals(2L, stack.counters().get("echo_requests_to_groups_ignored"));

        stack.echoToGroups(false, true); // echoIgnoreBroadcasts=false, echoIgnoreMulticast6=true
        stack.ipv6Handler().onFrame(b, new Frame(allNodes, EtherType.IPV6));
        assertTrue(resolver.sent.isEmpty(), "echoIgnoreMulticast6=true: the all-nodes echo is ignored");
        assertEquals(3L, stack.counters().get("echo_requests_to_groups_ignored"));
        for (byte[] request : List.of(allHosts, broadcast)) {
            stack.ipv4Handler().onFrame(b, new Frame(request, EtherType.IPV4));
            assertEquals(1, resolver.sent.size(), "echoIgnoreBroadcasts=false: answered");
            Resolver.Sent v4 = resolver.sent.remove(0);
            MemorySegment r4 = MemorySegment.ofArray(v4.packet());
            assertEquals(0x0A000001L, v4.low(), "to the requester 10.0.0.1");
            assertEquals(0x0A000002, Ipv4Header.source(r4, 0), "from b's own 10.0.0.2");
            assertEquals(IcmpEcho.TYPE_ECHO_REPLY, IcmpEcho.type(r4, Ipv4Header.LENGTH));
        }
    }

    @Test
    void withoutAResolverPacketsAreDroppedAndCounted() throws Exception {
        stack.resolver(false, null);
        CompletableFuture<EchoReply> reply = stack.echo(null, ip("10.0.0.2"), 1, 1, 8, Duration.ofSeconds(5));
        assertTrue(reply.isCompletedExceptionally());
        assertEquals(1, stack.counters().get("tx_dropped_no_resolver"));
    }

    @Test
    void udpOverTheLinkAndTheBroadcastGroup() throws Exception {
        List<String> got = new ArrayList<>();
        stack.open(9000, d -> got.add(d.link() + " " + d.sourcePort() + " "
                + new String(d.payload().toArray(ValueLayout.JAVA_BYTE))));
        UdpSocket client = stack.open(5000, d -> { });
        assertEquals(TransmitResult.SENT, client.send(null, ip("10.0.0.2"), 9000, MemorySegment.ofArray("hi".getBytes())));
        stack.ipv4Handler().onFrame(b, new Frame(resolver.sent.remove(0).packet(), EtherType.IPV4));
        assertEquals(List.of("b 5000 hi"), got);
        client.send(null, ip("10.0.0.255"), 9000, MemorySegment.ofArray("all".getBytes()));
        assertEquals(1, a.broadcasts.size(), "a subnet broadcast goes to the broadcast group");
        stack.ipv4Handler().onFrame(b, new Frame(a.broadcasts.get(0), EtherType.IPV4));
        assertEquals("b 5000 all", got.get(1));
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> client.send(null, ip("10.0.0.2"), 9000, MemorySegment.ofArray(new byte[2017])));
        assertTrue(big.getMessage().contains("does not fit the MTU 2044 of a"), big.getMessage());
        assertEquals(0, stack.counters().get("udp_no_port"), "no datagram went to an unbound port");
        assertEquals(2, stack.counters().get("udp_received"));
    }

    @Test
    void arraysAndByteBuffersAreSentAsTheirOctets() throws Exception {
        List<String> got = new ArrayList<>();
        stack.open(9000, d -> got.add(new String(d.payload().toArray(ValueLayout.JAVA_BYTE))));
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        assertEquals(TransmitResult.SENT, client.send("hello, b".getBytes()));
        ByteBuffer heap = ByteBuffer.wrap("xxheapyy".getBytes()).position(2).limit(6);
        assertEquals(TransmitResult.SENT, client.send(heap));
        assertEquals(2, heap.position(), "the position is left where it was");
        assertEquals(6, heap.limit());
        ByteBuffer direct = ByteBuffer.allocateDirect(16).put("direct".getBytes()).flip();
        assertEquals(TransmitResult.SENT, client.send(direct));
        assertEquals(0, direct.position());
        assertEquals(TransmitResult.SENT, client.send(ip("10.0.0.2"), 9000, "to b".getBytes()));
        assertEquals(TransmitResult.SENT, client.send(ip("10.0.0.2"), 9000, ByteBuffer.wrap("buffer to b".getBytes())));
        for (Resolver.Sent sent : resolver.sent) {
            stack.ipv4Handler().onFrame(b, new Frame(sent.packet(), EtherType.IPV4));
        }
        assertEquals(List.of("hello, b", "heap", "direct", "to b", "buffer to b"), got);
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
                () -> client.send(ByteBuffer.allocate(2017)));
        assertTrue(big.getMessage().contains("2017 octets of payload"), big.getMessage());
        assertEquals(TransmitResult.SENT, client.send(new byte[0]), "an empty datagram is a datagram");
    }

    @Test
    void arraysAndByteBuffersAreSentWithoutAllocating() throws Exception {
        resolver.record = false;
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        byte[] array = new byte[512];
        ByteBuffer heap = ByteBuffer.allocate(512);
        ByteBuffer direct = ByteBuffer.allocateDirect(512);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            client.send(array);
            client.send(heap);
            client.send(direct);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            client.send(array);
            client.send(heap);
            client.send(direct);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(360_000, resolver.count);
        assertTrue(allocated < 60_000 * 16L / 100, allocated + " octets allocated in 60,000 sends");
    }

    @Test
    void aConnectedSocketSendsWithoutAllocating() throws Exception {
        resolver.record = false;
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        MemorySegment payload = MemorySegment.ofArray(new byte[512]);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            client.send(payload);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            client.send(payload);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(120_000, resolver.count);
        assertTrue(allocated < 20_000 * 16L / 100, allocated + " octets allocated in 20,000 sends");
    }

    @Test
    void aConnectedSocketFollowsAnAddressChangeFromTheNextDatagram() throws Exception {
        UdpSocket client = stack.open(5000, d -> { });
        client.connect(null, ip("10.0.0.9"), 9000);
        MemorySegment payload = MemorySegment.ofArray(new byte[100]);
        assertEquals(TransmitResult.SENT, client.send(payload));
        assertEquals(a, resolver.sent.get(0).link(), "a is the first link whose prefix holds 10.0.0.9");

        table.remove("a", ip("10.0.0.1"));
        assertEquals(TransmitResult.SENT, client.send(payload));
        Resolver.Sent second = resolver.sent.get(1);
        assertEquals(b, second.link(), "a has no address any more: the next datagram goes via b");
        assertEquals(0x0A000002, Ipv4Header.source(MemorySegment.ofArray(second.packet()), 0), "from b's address");

        table.remove("b", ip("10.0.0.2"));
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, client.send(payload), "no link holds 10.0.0.9 now");
        assertEquals(0, client.send(new MemorySegment[] {payload, payload}, 2), "nor for a burst");
        assertEquals(3, stack.counters().get("tx_no_route"));
        assertEquals(2, resolver.sent.size());

        table.add("a", ip("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        assertEquals(TransmitResult.SENT, client.send(payload));
        assertEquals(a, resolver.sent.get(2).link(), "routed again as soon as a route exists");
        assertEquals(3, stack.counters().get("udp_sent"), "the dropped ones are not counted as sent");
    }

    @Test
    void aConnectedSocketFollowsAPrefixChangeBetweenBroadcastAndUnicast() throws Exception {
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.255"), 9000);
        MemorySegment payload = MemorySegment.ofArray(new byte[10]);
        assertEquals(TransmitResult.SENT, client.send(payload));
        assertEquals(1, a.broadcasts.size(), "the broadcast address of 10.0.0.0/24 goes to the broadcast group");
        assertTrue(resolver.sent.isEmpty());

        table.add("a", ip("10.0.0.1"), 16, AddressOrigin.MANUAL, null);
        assertEquals(TransmitResult.SENT, client.send(payload));
        assertEquals(1, a.broadcasts.size(), "in 10.0.0.0/16 it is a host's address");
        assertEquals(0x0A0000FF, resolver.sent.get(0).low(), "unicast to the neighbour");
    }

    @Test
    void aConnectedSocketFollowsTheLinkMtuAndTheLinkGoingAway() throws Exception {
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        MemorySegment big = MemorySegment.ofArray(new byte[4000]);
        IllegalArgumentException tooBig = assertThrows(IllegalArgumentException.class, () -> client.send(big));
        assertTrue(tooBig.getMessage().contains("does not fit the MTU 2044 of a"), tooBig.getMessage());

        a.mtu = 65520; // connected mode
        resolver.mtu = 65520;
        assertEquals(TransmitResult.SENT, client.send(big), "the next datagram sees the link's new MTU");
        assertEquals(4028, resolver.sent.get(0).packet().length);

        stack.removeLink(a);
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, client.send(MemorySegment.ofArray(new byte[10])),
                "the link is gone");
        assertEquals(1, stack.counters().get("tx_no_route"));
        stack.addLink(a);
        assertEquals(TransmitResult.SENT, client.send(MemorySegment.ofArray(new byte[10])), "and back");
        assertEquals(2, resolver.sent.size());
    }

    @Test
    void aConnectedSocketSendsThroughItsBoundNeighbourSenderAndTakesANewResolverAtOnce() throws Exception {
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        MemorySegment payload = MemorySegment.ofArray(new byte[10]);
        for (int i = 0; i < 3; i++) {
            assertEquals(TransmitResult.SENT, client.send(payload));
        }
        assertEquals(1, resolver.senders, "one sender bound at connect");
        assertEquals(3, resolver.boundSends);
        assertEquals(0x0A000002, resolver.sent.get(2).low());

        Resolver next = new Resolver();
        stack.resolver(false, next);
        assertEquals(TransmitResult.SENT, client.send(payload));
        assertEquals(3, resolver.count, "the old resolver gets no more");
        assertEquals(1, next.boundSends, "the new one's sender, from the next datagram on");

        stack.resolver(false, null);
        assertEquals(TransmitResult.DROPPED_NO_RESOLVER, client.send(payload));
        assertEquals(1, stack.counters().get("tx_dropped_no_resolver"));
    }

    @Test
    void aConnectedSocketOnALinkThatGoesDownAndUpSendsAgainWhenItIsUp() throws Exception {
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        MemorySegment payload = MemorySegment.ofArray(new byte[10]);
        assertEquals(TransmitResult.SENT, client.send(payload));
        a.state = LinkState.DOWN;
        assertEquals(TransmitResult.SENT, client.send(payload), "the resolver decides, as before (the fake sends)");
        assertEquals(2, resolver.sent.size());
        table.add("b", ip("10.0.1.2"), 24, AddressOrigin.MANUAL, null);
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, client.send(payload),
                "routed again while a is down: no route over a link that is not UP");
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, client.send(payload));
        assertEquals(2, stack.counters().get("tx_no_route"));
        a.state = LinkState.UP;
        assertEquals(TransmitResult.SENT, client.send(payload), "a is UP again: routed at once");
        assertEquals(a, resolver.sent.get(2).link());
        assertEquals(2, stack.counters().get("tx_no_route"));
    }

    @Test
    void aBurstOfDatagramsGoesToTheLinkAsOneBurst() throws Exception {
        UdpSocket client = stack.open(5000, d -> { });
        client.connect("a", ip("10.0.0.2"), 9000);
        MemorySegment[] payloads = new MemorySegment[4];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = MemorySegment.ofArray(("datagram " + i).getBytes());
        }
        assertEquals(3, client.send(payloads, 3));
        assertEquals(1, a.bursts);
        assertEquals(1, a.burstsEnded);
        assertEquals(List.of(true, true, true), resolver.inBurst, "every datagram handed over inside the burst");
        for (int i = 0; i < 3; i++) {
            byte[] packet = resolver.sent.get(i).packet();
            assertEquals("datagram " + i, new String(packet, 28, packet.length - 28), "in order, behind IPv4 and UDP");
        }
        assertEquals(3, stack.counters().get("udp_sent"));

        a.grantsBursts = false;
        assertEquals(2, client.send(payloads, 2), "a link without a burst takes them one by one");
        assertEquals(1, a.burstsEnded, "no burst was begun, none is ended");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> client.send(payloads, 5));
        assertEquals("invalid burst of 5 datagrams: allowed 0..4", e.getMessage());
    }

    @Test
    void theReceivePathDeliversUdpWithoutAllocating() throws Exception {
        long[] octets = new long[1];
        stack.open(9000, d -> octets[0] += d.payloadLength());
        UdpSocket client = stack.open(5000, d -> { });
        client.send(null, ip("10.0.0.2"), 9000, MemorySegment.ofArray(new byte[512]));
        Frame frame = new Frame(resolver.sent.remove(0).packet(), EtherType.IPV4);
        var handler = stack.ipv4Handler();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            handler.onFrame(b, frame);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 20_000; i++) {
            handler.onFrame(b, frame);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertEquals(120_000L * 512, octets[0]);
        assertTrue(allocated < 20_000 * 16L / 100, allocated + " octets allocated in 20,000 receives");
    }
}
