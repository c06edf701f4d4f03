package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.EchoReply;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.PrefixInformation;
import ipoib.codec.nd.RouterAdvertisement;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import javax.inject.Inject;
import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerSuite;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogReaderService;

/**
 * IPv6 over the loopback fabric: link-local addresses from the port GUID (RFC 4391 §8) after
 * duplicate address detection, pings over link-local and global addresses between HCAs (cold
 * and warm), DAD detecting a duplicate, Router Advertisements (an MTU option larger than the
 * link MTU changes nothing; a smaller one lowers the IPv6 MTU; a prefix autoconfigures). The
 * path-information query of an address nobody answers for, which waits out ND's retransmissions,
 * is NdEngineTest's on a manual clock.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class NdIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.mcast",
            "ipoib.arp", "ipoib.nd", "ipoib.host");

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;

    IpFixture ip;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    @Before
    public void interfaces() throws Exception {
        ip = new IpFixture(context, configurationAdmin);
        ip.await(ipoib.api.mcast.MulticastService.class, null);
        if (ip.link("a") == null) {
            ip.configure("ipoib.nd", "retransmitMillis", 200, "dadTransmits", 1, "routerSolicitations", 1,
                    "routerSolicitationIntervalMillis", 1000L);
            ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv6)(retransmitMillis=200))");
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        awaitState("a", linkLocal("a"), AddressState.PREFERRED);
        awaitState("b", linkLocal("b"), AddressState.PREFERRED);
    }

    /** RFC 4391 §8: the port GUID with the u bit toggled unless it is set already. */
    String linkLocal(String link) {
        long guid = ip.link(link).gid().interfaceId();
        long id = (guid & 0x0200_0000_0000_0000L) != 0 ? guid : guid ^ 0x0200_0000_0000_0000L;
        return ipoib.api.resolve.AddressBits.ipv6(0xfe80_0000_0000_0000L, id).getHostAddress();
    }

    void awaitState(String link, String address, AddressState state) {
        Await.until(address + " on " + link + " " + state, Duration.ofSeconds(15), () -> {
            try {
                InterfaceAddress a = ip.findAddress(link, address);
                return a != null && a.state() == state;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }, () -> ip.addresses().addresses(null).toString());
    }

    /**
     * The multicast manager keeps an interface's listeners across a re-registration of its
     * service; ND leaves its own groups when the service goes and joins them on
     * the new one, so a restart of the link bundle leaves ND one listener of all-nodes, not two.
     */
    @Test
    public void ndHoldsOneListenerOfAllNodesAcrossARestartOfTheLinkBundle() throws Exception {
        ipoib.api.mcast.MulticastService multicast = ip.await(ipoib.api.mcast.MulticastService.class, null);
        InetAddress allNodes = InetAddress.getByName("ff02::1");
        java.util.function.Supplier<ipoib.api.mcast.GroupInfo> group = () -> multicast.groups("a").stream()
                .filter(g -> allNodes.equals(g.group())).findFirst().orElse(null);
        Await.until("ND listens to all-nodes on a", Duration.ofSeconds(15),
                group, g -> g.listeners() == 1);
        org.osgi.framework.Bundle linkBundle = java.util.Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.link".equals(b.getSymbolicName())).findFirst().orElseThrow();
        linkBundle.stop();
        linkBundle.start();
        ip.awaitUp("a");
        ip.awaitUp("b");
        awaitState("a", linkLocal("a"), AddressState.PREFERRED);
        Await.until("all-nodes joined again on a", Duration.ofSeconds(15),
                group, g -> g.joinState() == ipoib.api.JoinState.FULL_MEMBER);
        assertEquals(String.valueOf(group.get()), 1, group.get().listeners());
    }

    @Test
    public void linkLocalAddressesComeFromThePortGuidWithTheUBitRule() throws Exception {
        IpoibLink a = ip.link("a");
        assertEquals("the loopback GUIDs are manufacturer EUI-64s (u bit clear)", 0,
                a.gid().interfaceId() & 0x0200_0000_0000_0000L);
        InterfaceAddress ll = ip.findAddress("a", linkLocal("a"));
        assertEquals(AddressOrigin.LINK_LOCAL, ll.origin());
        assertEquals(64, ll.prefixLength());
        assertEquals(InetAddress.getByName("fe80::202:c903:0:101"), ll.address());
        assertEquals("fe80::202:c903:0:101/64", ll.cidr());
        String awaited = ip.run("ipoib:addr await 10");
        assertTrue(awaited, awaited.contains("fe80::202:c903:0:101/64") && !awaited.contains("TENTATIVE"));
        NeighbourResolver nd = ip.nd();
        assertTrue(nd.counters().toString(), ip.counter(nd, "dad_passed") >= 2);
        assertTrue(nd.counters().toString(), ip.counter(nd, "dad_probes_sent") >= 2);
        Await.until("router solicitations once the link-local address is usable", Duration.ofSeconds(5),
                () -> ip.counter(nd, "router_solicitations_sent") >= 2, () -> nd.counters().toString());
    }

    /** A changed interfaceIdentifier applies at once, without a link bounce. */
    @Test
    public void theInterfaceIdentifierCanComeFromTheLidAndChangesLive() throws Exception {
        String guidBased = linkLocal("b");
        int qpn = ip.link("b").qpn().value();
        try {
            ip.configure("ipoib.nd", "interfaceIdentifier", "lid");
            ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv6)(interfaceIdentifier=lid))");
            int lid = ip.link("b").port().attributes().lid().value();
            String fromLid = ipoib.api.resolve.AddressBits.text(ipoib.api.resolve.AddressBits.ipv6(
                    0xfe80_0000_0000_0000L, lid));
            awaitState("b", fromLid, AddressState.PREFERRED);
            assertNull("the GUID-based link-local address went", ip.findAddress("b", guidBased));
            assertEquals("no bounce: b kept its QPN", qpn, ip.link("b").qpn().value());
            ip.pingUntilReply("a", fromLid, Duration.ofSeconds(5));
        } finally {
            ip.configure("ipoib.nd", "interfaceIdentifier", "guid");
            ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv6)(interfaceIdentifier=guid))");
            awaitState("b", guidBased, AddressState.PREFERRED);
        }
    }

    @Test
    public void ipv6PingsOverLinkLocalAndGlobalAddressesColdAndWarm() throws Exception {
        NeighbourResolver nd = ip.nd();
        nd.flush(null);
        String bLinkLocal = linkLocal("b");
        long solicitations = ip.counter(nd, "solicitations_sent");
        long retransmitted = ip.counter(nd, "solicitations_retransmitted");
        EchoReply cold = ip.ping("a", bLinkLocal, Duration.ofSeconds(5));
        assertNotNull("a cold link-local ping is answered", cold);
        assertEquals(InetAddress.getByName(bLinkLocal), cold.from());
        assertEquals(64, cold.ttl());
        // Exactly one resolution: one NS, plus its retransmissions if a loaded machine delayed the
        // NA past retransmitMillis (counted separately); b learnt a from the NS's source link-layer
        // address option (RFC 4861 §7.2.3) and answered without soliciting.
        long resent = ip.counter(nd, "solicitations_retransmitted") - retransmitted;
        assertEquals("one Neighbor Solicitation went out (" + resent + " retransmitted)", solicitations + 1 + resent,
                ip.counter(nd, "solicitations_sent"));
        long afterCold = ip.counter(nd, "solicitations_sent");
        for (int i = 0; i < 5; i++) {
            assertNotNull("warm ping " + i, ip.ping("a", bLinkLocal, Duration.ofSeconds(2)));
        }
        assertEquals("warm pings need no solicitation", afterCold, ip.counter(nd, "solicitations_sent"));
        NeighbourEntry e = ip.neighbour(nd, "a", bLinkLocal);
        assertEquals(NeighbourState.RESOLVED, e.state());
        assertEquals(ip.link("b").address(), e.linkAddress());
        assertEquals(ip.link("b").port().attributes().lid(), e.lid());

        ip.address("a", "fd00:3::1", 64);
        ip.address("b", "fd00:3::2", 64);
        awaitState("a", "fd00:3::1", AddressState.PREFERRED);
        awaitState("b", "fd00:3::2", AddressState.PREFERRED);
        assertEquals("a", ip.host().route(null, InetAddress.getByName("fd00:3::2")).orElseThrow().link());
        ip.pingUntilReply(null, "fd00:3::2", Duration.ofSeconds(5));
        String shell = ip.run("ipoib:ping -c 2 -i 0.1 fd00:3::2");
        assertTrue(shell, shell.contains("2 packets transmitted, 2 received, 0% packet loss"));
        String scoped = ip.run("ipoib:ping -c 1 '" + bLinkLocal + "%a'");
        assertTrue(scoped, scoped.contains("1 received"));
        String resolved = ip.run("ipoib:resolve fd00:3::2");
        assertTrue(resolved, resolved.contains("dgid " + ip.link("b").gid()));
    }

    @Test
    public void duplicateAddressDetectionFindsADuplicate() throws Exception {
        NeighbourResolver nd = ip.nd();
        long duplicates = ip.counter(nd, "dad_duplicates");
        ip.address("b", "fd00:4::1", 64);
        awaitState("b", "fd00:4::1", AddressState.PREFERRED);
        ip.address("a", "fd00:4::1", 64);
        awaitState("a", "fd00:4::1", AddressState.DUPLICATE);
        assertEquals(duplicates + 1, ip.counter(nd, "dad_duplicates"));
        assertEquals("b keeps its address", AddressState.PREFERRED, ip.findAddress("b", "fd00:4::1").state());
        String list = ip.run("ipoib:addr a");
        assertTrue(list, list.contains("fd00:4::1/64"));
        assertTrue(list, list.contains("DUPLICATE"));
        assertTrue("a DUPLICATE address is no route", ip.host().route("a", InetAddress.getByName("fd00:4::9"))
                .map(r -> !r.source().equals(addr("fd00:4::1"))).orElse(true));
    }

    /**
     * An address DAD found DUPLICATE is not ours. After a flush, the owner's
     * advertisement of it is learnt (not taken for a conflict) and the owner answers a ping.
     */
    @Test
    public void theOwnerOfAnAddressThatIsDuplicateHereIsReachable() throws Exception {
        NeighbourResolver nd = ip.nd();
        // a's own fd00:5::3 goes through DAD while b's fd00:5::1 does: two retransmit times at once.
        ip.address("b", "fd00:5::1", 64);
        ip.address("a", "fd00:5::3", 64);
        awaitState("b", "fd00:5::1", AddressState.PREFERRED);
        ip.address("a", "fd00:5::1", 64);
        awaitState("a", "fd00:5::1", AddressState.DUPLICATE);
        awaitState("a", "fd00:5::3", AddressState.PREFERRED);
        nd.flush("a");
        long conflicts = ip.counter(nd, "address_conflicts");
        assertNotNull("the owner b answers a's ping of fd00:5::1", ip.ping("a", "fd00:5::1", Duration.ofSeconds(5)));
        NeighbourEntry owner = ip.neighbour(nd, "a", "fd00:5::1");
        assertEquals(NeighbourState.RESOLVED, owner.state());
        assertEquals(ip.link("b").gid(), owner.linkAddress().gid());
        assertEquals("b's advertisement is no conflict for a", conflicts, ip.counter(nd, "address_conflicts"));
    }

    /**
     * IPv6 echo to the all-nodes group is answered by default, as Linux's
     * icmp/echo_ignore_multicast=0, from the member's link-local address (ND keeps every interface
     * a FullMember of ff02::1).
     */
    @Test
    public void echoToAllNodesIsAnsweredFromTheMembersLinkLocalAddress() throws Exception {
        String awaited = ip.run("ipoib:addr await 10");
        assertTrue(awaited, !awaited.contains("TENTATIVE"));
        String ping = ip.run("ipoib:ping -c 1 -W 5 'ff02::1%a'");
        InterfaceAddress bLinkLocal = ip.addresses().addresses("b").stream()
                .filter(x -> x.ipv6() && x.address().isLinkLocalAddress()).findFirst().orElseThrow();
        java.util.regex.Matcher from = java.util.regex.Pattern.compile("bytes from ([0-9a-f:]+):").matcher(ping);
        assertTrue(ping, from.find());
        assertEquals(ping, bLinkLocal.address(), InetAddress.getByName(from.group(1)));
        assertTrue(ping, ping.contains("1 received"));
    }

    /** Every interface is a FullMember of the all-hosts group 224.0.0.1, as every Linux host. */
    @Test
    public void everyInterfaceIsAFullMemberOfAllHosts() throws Exception {
        ipoib.api.mcast.MulticastService mcast = ip.await(ipoib.api.mcast.MulticastService.class, null);
        for (String link : new String[] {"a", "b"}) {
            Await.until(link + " is a FullMember of 224.0.0.1", Duration.ofSeconds(10),
                    () -> mcast.groups(link).stream().anyMatch(g -> g.group() != null
                            && g.group().getHostAddress().equals("224.0.0.1")
                            && g.joinState() == ipoib.api.JoinState.FULL_MEMBER),
                    () -> mcast.groups(link).toString());
        }
    }

    private static InetAddress addr(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private MemorySegment routerAdvertisement(long mtu, List<PrefixInformation> prefixes) {
        RouterAdvertisement ra = new RouterAdvertisement((Inet6Address) addr("fe80::99"), (Inet6Address) addr("ff02::1"),
                64, false, false, 0, 0, 0, Optional.empty(), mtu < 0 ? OptionalLong.empty() : OptionalLong.of(mtu),
                prefixes);
        MemorySegment s = MemorySegment.ofArray(new byte[NdCodec.encodedLength(ra)]);
        NdCodec.encode(s, 0, ra);
        return s;
    }

    @Test
    public void aRouterAdvertisementWithAnMtuAboveTheLinkMtuChangesNothing() throws Exception {
        NeighbourResolver nd = ip.nd();
        LogReaderService logs = ip.await(LogReaderService.class, null);
        assertEquals(2044, nd.linkMtu("a"));
        long ignored = ip.counter(nd, "ra_mtu_ignored");
        long received = ip.counter(nd, "router_advertisements_received");
        // b's link carries the advertisement of a router at fe80::99 to a.
        ip.link("b").sendBroadcast(EtherType.IPV6, routerAdvertisement(9000, List.of()));
        Await.until("a processed the advertisement", Duration.ofSeconds(5),
                () -> ip.counter(nd, "ra_mtu_ignored") == ignored + 1);
        assertEquals(received + 1, ip.counter(nd, "router_advertisements_received"));
        assertEquals("the IPv6 MTU stays the link MTU", 2044, nd.linkMtu("a"));
        assertEquals(2044, ip.host().route("a", addr(linkLocal("b"))).orElseThrow().mtu());
        Await.until("the ignored MTU is logged", Duration.ofSeconds(5), () -> logged(logs,
                "MTU option 9000 is larger than the link MTU 2044"));

        // A smaller MTU is taken: the host refuses what no longer fits.
        ip.link("b").sendBroadcast(EtherType.IPV6, routerAdvertisement(1500, List.of()));
        Await.until("the MTU 1500 is applied", Duration.ofSeconds(5), () -> nd.linkMtu("a") == 1500);
        GogoShell.Result big = ip.shell("ipoib:ping -I a -c 1 -s 1500 " + linkLocal("b"));
        assertNotNull(big.error());
        assertTrue(big.error().getMessage(), big.error().getMessage().contains("does not fit the MTU 1500"));
        ip.link("b").sendBroadcast(EtherType.IPV6, routerAdvertisement(2044, List.of()));
        Await.until("the MTU is back", Duration.ofSeconds(5), () -> nd.linkMtu("a") == 2044);
    }

    @Test
    public void aRouterAdvertisementPrefixAutoconfiguresAnAddress() throws Exception {
        PrefixInformation prefix = new PrefixInformation(64, true, true, 3600, 1800, (Inet6Address) addr("fd00:5::"));
        ip.link("b").sendBroadcast(EtherType.IPV6, routerAdvertisement(-1, List.of(prefix)));
        ip.link("a").sendBroadcast(EtherType.IPV6, routerAdvertisement(-1, List.of(prefix)));
        String aSlaac = slaac("a");
        String bSlaac = slaac("b");
        awaitState("a", aSlaac, AddressState.PREFERRED);
        awaitState("b", bSlaac, AddressState.PREFERRED);
        InterfaceAddress auto = ip.findAddress("a", aSlaac);
        assertEquals(AddressOrigin.AUTOCONF, auto.origin());
        assertNotNull("the valid lifetime is kept", auto.validUntil());
        ip.pingUntilReply("a", bSlaac, Duration.ofSeconds(5));
    }

    /** The address SLAAC forms from fd00:5::/64 and the interface identifier of the link-local address. */
    private String slaac(String link) {
        long id = ipoib.api.resolve.AddressBits.low(addr(linkLocal(link)));
        return ipoib.api.resolve.AddressBits.text(ipoib.api.resolve.AddressBits.ipv6(0xfd00_0005_0000_0000L, id));
    }

    private static boolean logged(LogReaderService logs, String text) {
        Enumeration<LogEntry> entries = logs.getLog();
        while (entries.hasMoreElements()) {
            if (entries.nextElement().getMessage().contains(text)) {
                return true;
            }
        }
        return false;
    }
}
