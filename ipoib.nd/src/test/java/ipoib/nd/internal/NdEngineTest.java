package ipoib.nd.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.link.EtherType;
import ipoib.api.link.LinkListener;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.NoSuchNodeException;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.codec.DecodeException;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.NdMessage;
import ipoib.codec.nd.NeighborAdvertisement;
import ipoib.codec.nd.NeighborSolicitation;
import ipoib.codec.nd.PrefixInformation;
import ipoib.codec.nd.RouterAdvertisement;
import ipoib.codec.nd.RouterSolicitation;
import ipoib.neighbour.Settings;
import ipoib.neighbour.testing.FakeAddresses;
import ipoib.neighbour.testing.FakeFrame;
import ipoib.neighbour.testing.FakeLink;
import ipoib.neighbour.testing.FakeMulticast;
import ipoib.neighbour.testing.RecordingReporter;
import ipoib.runtime.ManualClock;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ND engine built without Declarative Services, on a manual control loop. The known answers
 * are the RFCs': the link-local address from the port GUID with the u bit complemented (RFC 4391
 * §8), the solicited-node group (RFC 4291 §2.7.1), DAD from the unspecified address and its
 * outcome RetransTimer after the last probe (RFC 4862 §5.4), MAX_RTR_SOLICITATIONS 3 router
 * solicitations RTR_SOLICITATION_INTERVAL 4 s apart (RFC 4861 §6.3.7, §10), MAX_MULTICAST_SOLICIT
 * 3 neighbour solicitations RetransTimer 1 s apart (§7.2.2, §10).
 */
class NdEngineTest {
    /** GUID 00:02:c9:03:00:00:01:01, u bit clear: the identifier is 02:02:c9:03:00:00:01:01. */
    static final InetAddress LINK_LOCAL = InetAddress.ofLiteral("fe80::202:c903:0:101");
    static final InetAddress SOLICITED_NODE = InetAddress.ofLiteral("ff02::1:ff00:101");
    static final InetAddress ALL_NODES = InetAddress.ofLiteral("ff02::1");
    static final InetAddress ALL_ROUTERS = InetAddress.ofLiteral("ff02::2");
    static final InetAddress UNSPECIFIED = InetAddress.ofLiteral("::");
    static final Inet6Address PEER = (Inet6Address) InetAddress.ofLiteral("fe80::202:c903:0:201");
    static final Gid PEER_GID = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0201L);

    static final Instant WALL_START = Instant.parse("2026-01-01T00:00:00Z");

    final Settings settings = Settings.DEFAULTS; // RetransTimer 1 s, MAX_MULTICAST_SOLICIT 3
    final ManualControlLoop loop = new ManualControlLoop(new ManualClock(), null);
    final RecordingReporter reporter = new RecordingReporter();
    final FakeAddresses addresses = new FakeAddresses();
    final FakeMulticast multicast = new FakeMulticast();
    final FakeLink link = new FakeLink("ib0", 0x0002_c903_0000_0101L, 0x11);
    NdEngine nd;

    @BeforeEach
    void setUp() {
        // The wall clock of address lifetimes moves with the loop's clock.
        nd = new NdEngine(settings, NdOptions.DEFAULTS, loop, reporter,
                () -> WALL_START.plusNanos(loop.clock().nanoTime()));
        addresses.listener(nd);
        nd.setMulticast(multicast);
        nd.setAddresses(addresses);
    }

    /** The link is bound, UP: its link-local address is added and DAD starts. */
    void up() {
        nd.addLink(link);
        loop.runPending();
    }

    @AfterEach
    void tearDown() {
        nd.close();
    }

    void advanceMillis(long ms) {
        loop.advance(ms, TimeUnit.MILLISECONDS);
    }

    AddressState state(InetAddress a) {
        return addresses.get("ib0", a).state();
    }

    static NdMessage decode(byte[] packet) {
        try {
            return NdCodec.decode(MemorySegment.ofArray(packet), 0, packet.length);
        } catch (DecodeException e) {
            throw new AssertionError("ND sent a packet that does not decode: " + e.getMessage(), e);
        }
    }

    List<NdMessage> sentTo(InetAddress group) {
        return multicast.to(group).stream().map(s -> decode(s.packet())).toList();
    }

    /** DAD's probe went out at the start; RetransTimer later the address is PREFERRED (and the first RS goes out). */
    void passDad() {
        advanceMillis(settings.retransmitMillis());
        assertEquals(AddressState.PREFERRED, state(LINK_LOCAL));
    }

    static ReceivedFrame frame(NdMessage message) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[NdCodec.encodedLength(message)]);
        NdCodec.encode(buffer, 0, message);
        return new FakeFrame(EtherType.IPV6, buffer, 0x48, true);
    }

    @Test
    void theLinkLocalAddressComesFromTheGuidAndItsGroupsAreJoined() {
        up();
        assertEquals(AddressOrigin.LINK_LOCAL, addresses.get("ib0", LINK_LOCAL).origin());
        assertEquals(AddressState.TENTATIVE, state(LINK_LOCAL), "tentative until DAD passes");
        assertEquals(1, multicast.listeners.get("ib0 " + ALL_NODES.getHostAddress()));
        assertEquals(1, multicast.listeners.get("ib0 " + SOLICITED_NODE.getHostAddress()));
    }

    @Test
    void dadProbesOnceFromTheUnspecifiedAddressAndPassesOneRetransTimerLater() {
        up();
        List<NdMessage> probes = sentTo(SOLICITED_NODE);
        assertEquals(1, probes.size(), "DupAddrDetectTransmits 1");
        NeighborSolicitation ns = (NeighborSolicitation) probes.get(0);
        assertEquals(UNSPECIFIED, ns.source());
        assertEquals(LINK_LOCAL, ns.target());
        assertTrue(ns.sourceLinkAddress().isEmpty(), "no source link-layer option from :: (RFC 4861 §4.3)");

        advanceMillis(settings.retransmitMillis() - 1);
        assertEquals(AddressState.TENTATIVE, state(LINK_LOCAL), "not before RetransTimer");
        advanceMillis(1);
        assertEquals(AddressState.PREFERRED, state(LINK_LOCAL));
        assertEquals(1, sentTo(SOLICITED_NODE).size(), "no second probe");
        List<NdMessage> toAllNodes = sentTo(ALL_NODES);
        assertEquals(1, toAllNodes.size(), "one unsolicited advertisement of the new address");
        NeighborAdvertisement na = (NeighborAdvertisement) toAllNodes.get(0);
        assertEquals(LINK_LOCAL, na.target());
        assertTrue(na.override() && !na.solicited(), "RFC 4861 §7.2.6: O set, S clear");
        assertEquals(Optional.of(link.address()), na.targetLinkAddress());
    }

    @Test
    void dadWhoseGroupsAreNotJoinedWithinTenSecondsOfTheLoopsClockGivesUpAndSaysSo() {
        multicast.joinsHang = true;
        up();
        advanceMillis(9_999);
        assertTrue(reporter.lines.stream().noneMatch(l -> l.contains("could not join its groups")), "not before 10 s");
        advanceMillis(1);
        assertTrue(reporter.lines.stream().anyMatch(l -> l.startsWith("WARN DAD of fe80::202:c903:0:101 on ib0")
                && l.contains("could not join its groups") && l.contains("TimeoutException")), reporter.lines.toString());
        assertEquals(AddressState.TENTATIVE, state(LINK_LOCAL));
        assertTrue(sentTo(SOLICITED_NODE).isEmpty(), "no probe without the groups");
    }

    /** RFC 4862 §5.4.2: DupAddrDetectTransmits probes RetransTimer apart; the address passes RetransTimer after the last. */
    @Test
    void twoDadTransmitsAreRetransTimerApartAndTheAddressPassesRetransTimerAfterTheLast() {
        nd.reconfigure(settings, new NdOptions(false, true, 2, 3, 4_000, true));
        up();
        assertEquals(1, sentTo(SOLICITED_NODE).size());
        advanceMillis(settings.retransmitMillis() - 1);
        assertEquals(1, sentTo(SOLICITED_NODE).size(), "the second probe not before RetransTimer");
        advanceMillis(1);
        assertEquals(2, sentTo(SOLICITED_NODE).size());
        advanceMillis(settings.retransmitMillis() - 1);
        assertEquals(AddressState.TENTATIVE, state(LINK_LOCAL));
        advanceMillis(1);
        assertEquals(AddressState.PREFERRED, state(LINK_LOCAL));
        assertEquals(2, sentTo(SOLICITED_NODE).size(), "DupAddrDetectTransmits 2: no third probe");
    }

    /**
     * DupAddrDetectTransmits 0 (RFC 4862 §5.4: no DAD) makes an address added later PREFERRED at
     * once, and its solicited-node group is joined all the same (RFC 4861 §7.2.1): the
     * solicitations of neighbours resolving it are sent there.
     */
    @Test
    void withoutDadAnAddressAddedLaterIsPreferredAtOnceAndItsSolicitedNodeGroupIsJoined() {
        nd.reconfigure(settings, new NdOptions(false, true, 0, 3, 4_000, true));
        up();
        InetAddress added = InetAddress.ofLiteral("fd00::2");
        InetAddress itsSolicitedNode = InetAddress.ofLiteral("ff02::1:ff00:2"); // RFC 4291 §2.7.1
        addresses.add("ib0", added, 64, AddressOrigin.MANUAL, null);
        loop.runPending();
        assertEquals(AddressState.PREFERRED, state(added));
        assertEquals(1, multicast.listeners.get("ib0 " + itsSolicitedNode.getHostAddress()), multicast.listeners.toString());
        assertTrue(sentTo(itsSolicitedNode).isEmpty(), "no probe");
    }

    @Test
    void anAdvertisementForATentativeAddressMakesItDuplicateAndItsGroupIsLeft() {
        up();
        LinkAddress other = LinkAddress.of(Qpn.of(0x77), PEER_GID);
        nd.onNeighborDiscovery(link, frame(new NeighborAdvertisement((Inet6Address) LINK_LOCAL, (Inet6Address) ALL_NODES,
                false, false, true, (Inet6Address) LINK_LOCAL, Optional.of(other))), 136);
        loop.runPending();
        assertEquals(AddressState.DUPLICATE, state(LINK_LOCAL));
        assertEquals(0, multicast.listeners.get("ib0 " + SOLICITED_NODE.getHostAddress()),
                "a DUPLICATE address needs no solicited-node group");
        advanceMillis(10 * settings.retransmitMillis());
        assertEquals(AddressState.DUPLICATE, state(LINK_LOCAL), "DAD does not pass it afterwards");
        assertEquals(0, sentTo(ALL_NODES).size(), "a duplicate address is not advertised");
        assertEquals(0, sentTo(ALL_ROUTERS).size(), "nor used to solicit routers");
    }

    @Test
    void routerSolicitationsAreThreeFourSecondsApartThenStop() {
        up();
        passDad();
        List<NdMessage> rs = sentTo(ALL_ROUTERS);
        assertEquals(1, rs.size(), "the first once the link-local address is usable");
        RouterSolicitation first = (RouterSolicitation) rs.get(0);
        assertEquals(LINK_LOCAL, first.source());
        assertEquals(Optional.of(link.address()), first.sourceLinkAddress());
        advanceMillis(4_000 - 1);
        assertEquals(1, sentTo(ALL_ROUTERS).size(), "not before RTR_SOLICITATION_INTERVAL");
        advanceMillis(1);
        assertEquals(2, sentTo(ALL_ROUTERS).size(), "the second 4 s after the first");
        advanceMillis(4_000);
        assertEquals(3, sentTo(ALL_ROUTERS).size());
        advanceMillis(60_000);
        assertEquals(3, sentTo(ALL_ROUTERS).size(), "MAX_RTR_SOLICITATIONS 3, then no more");
        assertEquals(3, nd.counters().get("router_solicitations_sent"));
    }

    @Test
    void aRouterAdvertisementEndsTheSolicitationsAndItsMtuAppliesWithinTheLinks() {
        up();
        passDad();
        assertEquals(1, sentTo(ALL_ROUTERS).size());
        RouterAdvertisement ra = new RouterAdvertisement(PEER, (Inet6Address) ALL_NODES, 64, false, false, 1800, 0, 0,
                Optional.of(LinkAddress.of(Qpn.of(0x48), PEER_GID)), OptionalLong.of(1500), List.of());
        nd.onNeighborDiscovery(link, frame(ra), 134);
        loop.runPending();
        advanceMillis(20_000);
        assertEquals(1, sentTo(ALL_ROUTERS).size(), "an advertisement ends router solicitation (RFC 4861 §6.3.7)");
        assertEquals(1500, nd.linkMtu("ib0"), "an MTU option below the link's applies");
        RouterAdvertisement larger = new RouterAdvertisement(PEER, (Inet6Address) ALL_NODES, 64, false, false, 1800, 0,
                0, Optional.empty(), OptionalLong.of(4000), List.of());
        nd.onNeighborDiscovery(link, frame(larger), 134);
        loop.runPending();
        assertEquals(1500, nd.linkMtu("ib0"), "one beyond the link MTU (2044) is ignored");
        assertEquals(1, nd.counters().get("ra_mtu_ignored"));
    }

    /**
     * RFC 4862 §5.5.3: a /64 prefix with the A flag forms prefix + interface identifier, tentative
     * (DAD runs), valid for the prefix's valid lifetime; when that ends the address goes. A prefix
     * of another length cannot take the 64-bit identifier and is ignored.
     */
    @Test
    void aPrefixWithTheAFlagFormsAnAddressThatEndsWithItsValidLifetime() {
        up();
        passDad();
        InetAddress formed = InetAddress.ofLiteral("2001:db8:1:2:202:c903:0:101");
        Inet6Address prefix = (Inet6Address) InetAddress.ofLiteral("2001:db8:1:2::");
        RouterAdvertisement ra = new RouterAdvertisement(PEER, (Inet6Address) ALL_NODES, 64, false, false, 1800, 0, 0,
                Optional.empty(), OptionalLong.empty(), List.of(new PrefixInformation(64, true, true, 10, 5, prefix),
                new PrefixInformation(48, true, true, 10, 5, (Inet6Address) InetAddress.ofLiteral("2001:db8:9::"))));
        nd.onNeighborDiscovery(link, frame(ra), 134);
        loop.runPending();
        var a = addresses.get("ib0", formed);
        assertEquals(AddressOrigin.AUTOCONF, a.origin());
        assertEquals(AddressState.TENTATIVE, a.state(), "a new address goes through DAD");
        assertEquals(WALL_START.plusMillis(settings.retransmitMillis()).plusSeconds(10), a.validUntil());
        assertEquals(2, addresses.addresses("ib0").size(), "the link-local and the /64 one; the /48 is ignored");
        advanceMillis(settings.retransmitMillis());
        assertEquals(AddressState.PREFERRED, state(formed));
        advanceMillis(8_000);
        assertEquals(AddressState.PREFERRED, state(formed), "within its valid lifetime");
        advanceMillis(2_000);
        assertNull(addresses.get("ib0", formed), "gone once the valid lifetime is over");
    }

    @Test
    void neighbourSolicitationsAreRetransmittedThreeTimesOneSecondApart() {
        up();
        passDad();
        multicast.sent.clear();
        InetAddress peerGroup = InetAddress.ofLiteral("ff02::1:ff00:201");
        assertEquals(TransmitResult.QUEUED, nd.send(link, PEER, EtherType.IPV6, MemorySegment.ofArray(new byte[40])));
        loop.runPending();
        assertEquals(1, sentTo(peerGroup).size(), "to the target's solicited-node group");
        NeighborSolicitation ns = (NeighborSolicitation) sentTo(peerGroup).get(0);
        assertEquals(LINK_LOCAL, ns.source());
        assertEquals(PEER, ns.target());
        assertEquals(Optional.of(link.address()), ns.sourceLinkAddress());
        advanceMillis(settings.retransmitMillis() - 1);
        assertEquals(1, sentTo(peerGroup).size(), "not before RetransTimer");
        advanceMillis(1);
        assertEquals(2, sentTo(peerGroup).size());
        advanceMillis(settings.retransmitMillis());
        assertEquals(3, sentTo(peerGroup).size());
        advanceMillis(settings.retransmitMillis());
        assertEquals(3, sentTo(peerGroup).size(), "MAX_MULTICAST_SOLICIT 3");
        assertEquals(NeighbourState.FAILED, nd.neighbours("ib0").get(0).state());
    }

    /** Path information of an address nobody answers for: pending while ND solicits, then NoSuchNode. */
    @Test
    void pathInformationOfNobodyIsPendingThenEndsInNoSuchNode() throws Exception {
        up();
        passDad();
        InetAddress nobody = InetAddress.ofLiteral("fe80::dead");
        PathInfoAnswer answer = nd.pathInfo("ib0", nobody);
        CompletableFuture<?> pending = assertInstanceOf(PathInfoAnswer.Pending.class, answer).path()
                .toCompletableFuture();
        loop.runPending();
        assertEquals(1, sentTo(InetAddress.ofLiteral("ff02::1:ff00:dead")).size(), "a solicitation to its group");
        advanceMillis(3 * settings.retransmitMillis());
        assertEquals(3, sentTo(InetAddress.ofLiteral("ff02::1:ff00:dead")).size(), "MAX_MULTICAST_SOLICIT 3");
        ExecutionException failure = assertThrows(ExecutionException.class, () -> pending.get(0, TimeUnit.SECONDS));
        assertInstanceOf(NoSuchNodeException.class, failure.getCause());
        assertInstanceOf(PathInfoAnswer.NoSuchNode.class, nd.pathInfo("ib0", nobody));
    }

    @Test
    void aSolicitedAdvertisementResolvesTheNeighbour() {
        up();
        passDad();
        link.pathQuery = gid -> java.util.concurrent.CompletableFuture.completedFuture(
                FakeLink.path(gid, link.gid, 0x22, 0));
        nd.send(link, PEER, EtherType.IPV6, MemorySegment.ofArray(new byte[] {7}));
        loop.runPending();
        LinkAddress peer = LinkAddress.of(Qpn.of(0x48), PEER_GID);
        nd.onNeighborDiscovery(link, frame(new NeighborAdvertisement(PEER, (Inet6Address) LINK_LOCAL, false, true, true,
                PEER, Optional.of(peer))), 136);
        loop.runPending();
        assertEquals(NeighbourState.RESOLVED, nd.neighbours("ib0").get(0).state());
        assertEquals(1, link.sent.size(), "the queued packet went out");
        assertEquals(0x48, link.sent.get(0).qpn());
    }

    @Test
    void theLinkGoingDownStopsRouterSolicitation() {
        up();
        passDad();
        link.state = ipoib.api.link.LinkState.DOWN;
        nd.linkChanged(link, LinkListener.Change.DOWN);
        advanceMillis(20_000);
        assertEquals(1, sentTo(ALL_ROUTERS).size());
    }

    /** RFC 4862 §5.4: an interface that comes up again tests its addresses again. */
    @Test
    void anInterfaceThatComesUpAgainRunsDadAgain() {
        up();
        passDad();
        link.state = ipoib.api.link.LinkState.DOWN;
        nd.linkChanged(link, LinkListener.Change.DOWN);
        loop.runPending();
        link.state = ipoib.api.link.LinkState.UP;
        nd.linkChanged(link, LinkListener.Change.UP);
        loop.runPending();
        assertEquals(AddressState.TENTATIVE, state(LINK_LOCAL));
        assertEquals(2, sentTo(SOLICITED_NODE).size(), "a second DAD probe");
        advanceMillis(settings.retransmitMillis());
        assertEquals(AddressState.PREFERRED, state(LINK_LOCAL));
    }

    @Test
    void closingLeavesTheGroupsJoinedForNd() {
        up();
        nd.close();
        assertEquals(0, multicast.listeners.get("ib0 " + ALL_NODES.getHostAddress()));
        assertEquals(0, multicast.listeners.get("ib0 " + SOLICITED_NODE.getHostAddress()));
        assertEquals(0, loop.scheduled(), "the timer stopped");
    }
}
