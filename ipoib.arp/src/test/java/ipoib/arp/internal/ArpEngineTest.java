package ipoib.arp.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.api.host.AddressOrigin;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourState;
import ipoib.codec.arp.ArpCodec;
import ipoib.codec.arp.ArpPacket;
import ipoib.neighbour.Settings;
import ipoib.neighbour.testing.FakeAddresses;
import ipoib.neighbour.testing.FakeFrame;
import ipoib.neighbour.testing.FakeLink;
import ipoib.neighbour.testing.RecordingReporter;
import ipoib.runtime.ManualClock;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ARP engine built without Declarative Services, on a manual control loop: time moves only
 * when the test says. Packets are checked against the field layout of RFC 826 with IPoIB's
 * 20-octet hardware address (RFC 4391 §9.2), octet by octet.
 */
class ArpEngineTest {
    static final InetAddress MINE = InetAddress.ofLiteral("10.0.0.1");
    static final InetAddress PEER = InetAddress.ofLiteral("10.0.0.2");
    static final int PEER_IP = 0x0A000002;
    static final Gid PEER_GID = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0201L);
    static final LinkAddress PEER_ADDRESS = LinkAddress.of(Qpn.of(0x48), PEER_GID);

    /** ARP's defaults: retransmit 1 s, 3 requests, 1 unicast probe, revalidation 30 s. */
    final Settings settings = Settings.DEFAULTS;
    final ManualControlLoop loop = new ManualControlLoop(new ManualClock(), null);
    final RecordingReporter reporter = new RecordingReporter();
    final FakeAddresses addresses = new FakeAddresses();
    final FakeLink link = new FakeLink("ib0", 0x0002_c903_0000_0101L, 0x11);
    CompletableFuture<ipoib.api.PathRecord> path;
    ArpEngine arp;

    @BeforeEach
    void setUp() {
        addresses.add("ib0", MINE, 24, AddressOrigin.MANUAL, null);
        link.pathQuery = gid -> path = new CompletableFuture<>();
        arp = new ArpEngine(settings, false, loop, reporter);
        arp.setAddresses(addresses);
        arp.addLink(link);
        loop.runPending();
    }

    @AfterEach
    void tearDown() {
        arp.close();
    }

    void advanceMillis(long ms) {
        loop.advance(ms, TimeUnit.MILLISECONDS);
    }

    List<FakeLink.Flooded> requests() {
        return link.flooded.stream().filter(f -> f.etherType() == EtherType.ARP).toList();
    }

    /** RFC 826 / RFC 4391 §9.2: ar$hrd 32 (IPoIB), ar$pro 0x0800, ar$hln 20, ar$pln 4, then ar$op. */
    static void assertArp(byte[] packet, int operation, LinkAddress sender, int senderIp, int targetIp) {
        ByteBuffer b = ByteBuffer.wrap(packet);
        assertEquals(8 + 20 + 4 + 20 + 4, packet.length, "hardware and protocol addresses of 20 and 4 octets");
        assertEquals(32, b.getShort(0), "hardware type: IP over InfiniBand");
        assertEquals(0x0800, b.getShort(2), "protocol type: IPv4");
        assertEquals(20, b.get(4));
        assertEquals(4, b.get(5));
        assertEquals(operation, b.getShort(6));
        assertEquals(sender.qpn().value(), b.getInt(8) & 0xFF_FFFF, "sender QPN");
        assertEquals(sender.gid().prefix(), b.getLong(12), "sender GID prefix");
        assertEquals(sender.gid().interfaceId(), b.getLong(20), "sender GUID");
        assertEquals(senderIp, b.getInt(28));
        assertEquals(targetIp, b.getInt(52));
    }

    /** A received ARP frame on the link, as the link's receive thread hands it over. */
    static ReceivedFrame frame(ArpPacket packet, int sourceQpn) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[ArpCodec.LENGTH]);
        ArpCodec.encode(buffer, 0, packet);
        return frame(buffer, sourceQpn);
    }

    static ReceivedFrame frame(MemorySegment buffer, int sourceQpn) {
        return new FakeFrame(EtherType.ARP, buffer, sourceQpn, false);
    }

    NeighbourEntry entry() {
        return arp.neighbours("ib0").stream().filter(e -> e.address().equals(PEER)).findFirst().orElse(null);
    }

    @Test
    void anUnansweredRequestIsRetransmittedEveryRetransmitTimeThenTheEntryFails() {
        assertEquals(TransmitResult.QUEUED, arp.send(link, PEER, EtherType.IPV4, MemorySegment.ofArray(new byte[20])));
        loop.runPending();
        assertEquals(1, requests().size(), "one request at once");
        assertArp(requests().get(0).payload(), 1, link.address(), 0x0A000001, PEER_IP);
        assertNull(requests().get(0).group(), "to the broadcast group");

        advanceMillis(settings.retransmitMillis() - 1);
        assertEquals(1, requests().size(), "not before the retransmission time");
        advanceMillis(1);
        assertEquals(2, requests().size(), "the second request one retransmission time after the first");
        advanceMillis(settings.retransmitMillis());
        assertEquals(3, requests().size());
        assertEquals(NeighbourState.INCOMPLETE, entry().state());
        advanceMillis(settings.retransmitMillis());
        assertEquals(3, requests().size(), "three requests (the configured 'requests'), no fourth");
        assertEquals(NeighbourState.FAILED, entry().state());
        assertEquals(1, arp.counters().get("dropped_resolution_failed"), "the queued frame is dropped and counted");
        assertEquals(2, arp.counters().get("solicitations_retransmitted"));
        assertTrue(reporter.events.contains("ipoib/neighbour/FAILED"), reporter.events.toString());
    }

    /** A new configuration applies to the next resolution: 300 ms between requests, 2 requests. */
    @Test
    void theConfiguredRetransmitTimeAndRequestCountApply() {
        arp.reconfigure(new Settings(300, 2, 1, 3, 1024, 30_000, 300_000, 3_000, 30_000, false), false);
        arp.send(link, PEER, EtherType.IPV4, MemorySegment.ofArray(new byte[20]));
        loop.runPending();
        assertEquals(1, requests().size());
        advanceMillis(299);
        assertEquals(1, requests().size(), "not before 300 ms");
        advanceMillis(1);
        assertEquals(2, requests().size());
        advanceMillis(300);
        assertEquals(2, requests().size(), "two requests, no third");
        assertEquals(NeighbourState.FAILED, entry().state());
    }

    @Test
    void aReplyResolvesTheNeighbourAndTheQueuedFrameGoesOutUnicast() {
        arp.send(link, PEER, EtherType.IPV4, MemorySegment.ofArray(new byte[] {42}));
        loop.runPending();
        arp.onFrame(link, frame(new ArpPacket(ipoib.codec.arp.ArpOperation.REPLY, PEER_ADDRESS, PEER_IP,
                link.address(), 0x0A000001), 0x48));
        assertEquals(NeighbourState.PATH_PENDING, entry().state());
        path.complete(FakeLink.path(PEER_GID, link.gid, 0x22, 0));
        loop.runPending();
        assertEquals(NeighbourState.RESOLVED, entry().state());
        assertEquals(1, link.sent.size());
        assertEquals(0x48, link.sent.get(0).qpn(), "to the QPN the reply carried");
        assertArrayEquals(new byte[] {42}, link.sent.get(0).payload());
        advanceMillis(5 * settings.retransmitMillis());
        assertEquals(1, requests().size(), "answered: no retransmission");
    }

    @Test
    void aRequestForOurAddressIsAnsweredUnicastAndTeachesTheRequester() {
        arp.onFrame(link, frame(ArpPacket.request(PEER_ADDRESS, PEER_IP, 0x0A000001), 0x48));
        assertEquals(PEER_ADDRESS, entry().linkAddress(), "RFC 826: the requester is merged in (it is for us)");
        path.complete(FakeLink.path(PEER_GID, link.gid, 0x22, 0));
        loop.runPending();
        assertEquals(1, link.sent.size(), "the reply, once the path to the requester is known");
        assertEquals(EtherType.ARP, link.sent.get(0).etherType());
        assertArp(link.sent.get(0).payload(), 2, link.address(), 0x0A000001, PEER_IP);
        assertEquals(0, requests().size(), "nothing to ask: the request told us the requester's address");
    }

    @Test
    void aRequestForAnotherAddressTeachesNothingNew() {
        arp.onFrame(link, frame(ArpPacket.request(PEER_ADDRESS, PEER_IP, 0x0A000009), 0x48));
        assertNull(entry(), "RFC 826: an unknown sender is only merged when the packet is for us");
        assertTrue(link.sent.isEmpty());
    }

    /** RFC 4391 §9.4: a used entry is revalidated after revalidateMillis, unicast first, then broadcast. */
    @Test
    void aUsedEntryIsRevalidatedByAUnicastProbeThenByBroadcast() {
        arp.reconfigure(new Settings(1000, 3, 1, 3, 1024, 5_000, 300_000, 3_000, 30_000, false), false);
        arp.onFrame(link, frame(ArpPacket.request(PEER_ADDRESS, PEER_IP, 0x0A000001), 0x48));
        path.complete(FakeLink.path(PEER_GID, link.gid, 0x22, 0));
        loop.runPending();
        link.sent.clear();
        long tick = arp.engine().settings().tickMillis();
        for (long t = 0; t < 5_000; t += tick) {
            arp.send(link, PEER, EtherType.IPV4, MemorySegment.ofArray(new byte[4])); // in use
            advanceMillis(tick);
        }
        assertEquals(NeighbourState.STALE, entry().state());
        List<FakeLink.Sent> probes = link.sent.stream().filter(s -> s.etherType() == EtherType.ARP).toList();
        assertEquals(1, probes.size(), "one unicast probe (unicastProbes 1)");
        assertEquals(0x48, probes.get(0).qpn());
        assertArp(probes.get(0).payload(), 1, link.address(), 0x0A000001, PEER_IP);
        assertEquals(0, requests().size(), "no broadcast yet");
        advanceMillis(1_000);
        assertEquals(1, requests().size(), "then a broadcast request, one retransmission time later");
        arp.onFrame(link, frame(new ArpPacket(ipoib.codec.arp.ArpOperation.REPLY, PEER_ADDRESS, PEER_IP,
                link.address(), 0x0A000001), 0x48));
        assertEquals(NeighbourState.RESOLVED, entry().state(), "the answer confirms it");
    }

    @Test
    void gratuitousArpAnnouncesEachAddressWhenTheLinkComesUp() {
        arp.reconfigure(settings, true);
        arp.linkChanged(link, ipoib.api.link.LinkListener.Change.UP);
        loop.runPending();
        assertEquals(1, requests().size());
        assertArp(requests().get(0).payload(), 1, link.address(), 0x0A000001, 0x0A000001);
        assertEquals(1, arp.counters().get("gratuitous_sent"));
    }

    @Test
    void aMalformedPacketIsCountedAndDropped() {
        MemorySegment truncated = MemorySegment.ofArray(new byte[10]);
        arp.onFrame(link, frame(truncated, 0x48));
        assertEquals(1, arp.counters().get("rx_malformed"));
        assertTrue(arp.neighbours("ib0").isEmpty());
        assertTrue(reporter.lines.stream().anyMatch(l -> l.startsWith("DEBUG malformed ARP packet on ib0")),
                reporter.lines.toString());
    }

    @Test
    void closingStopsTheTimer() {
        int before = loop.scheduled();
        assertEquals(1, before, "the engine's tick");
        arp.close();
        assertEquals(0, loop.scheduled());
    }
}
