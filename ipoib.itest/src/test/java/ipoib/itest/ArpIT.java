package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import ipoib.api.host.EchoReply;
import ipoib.api.host.UdpDatagram;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.NoSuchNodeException;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * IPv4 over the loopback fabric: ARP resolution between interfaces on different HCAs (cold and
 * warm pings), the neighbour table and path-information query, retransmission under loss, a
 * failing PathRecord lookup, healing after a port reset through revalidation, permanent
 * entries, UDP, and the shell commands.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class ArpIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.arp",
            "ipoib.host");
    static final String A = "10.1.0.1";
    static final String B = "10.1.0.2";

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
        ip.configure("ipoib.arp", "retransmitMillis", 100, "requests", 5, "revalidateMillis", 60_000L,
                "failedHoldMillis", 300L, "gratuitous", true, "serviceLevel", "broadcast");
        ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(retransmitMillis=100)(requests=5)(revalidateMillis=60000)"
                + "(gratuitous=true)(serviceLevel=broadcast))");
        if (ip.link("a") == null) {
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        if (ip.findAddress("a", A) == null) {
            ip.address("a", A, 24);
            ip.address("b", B, 24);
        }
        ip.run("fabric:clear");
    }

    @Test
    public void coldThenWarmPingsResolveOnceAndFillBothTables() throws Exception {
        NeighbourResolver arp = ip.arp();
        arp.flush(null);
        long requests = ip.counter(arp, "requests_sent");
        long retransmitted = ip.counter(arp, "solicitations_retransmitted");
        EchoReply cold = ip.ping("a", B, Duration.ofSeconds(5));
        assertNotNull("a cold ping is answered once ARP and the PathRecord resolved", cold);
        assertEquals(InetAddress.getByName(B), cold.from());
        assertEquals("a", cold.link());
        assertEquals(64, cold.ttl());
        // Exactly one resolution: one request, plus its retransmissions if a loaded machine delayed
        // the reply past retransmitMillis (counted separately); b answered without asking.
        long resent = ip.counter(arp, "solicitations_retransmitted") - retransmitted;
        assertEquals("one ARP request went out (" + resent + " retransmitted)", requests + 1 + resent,
                ip.counter(arp, "requests_sent"));

        long afterCold = ip.counter(arp, "requests_sent");
        for (int i = 0; i < 5; i++) {
            assertNotNull("warm ping " + i, ip.ping("a", B, Duration.ofSeconds(2)));
        }
        assertEquals("warm pings need no ARP", afterCold, ip.counter(arp, "requests_sent"));

        IpoibLink b = ip.link("b");
        NeighbourEntry onA = ip.neighbour(arp, "a", B);
        assertEquals(NeighbourState.RESOLVED, onA.state());
        assertEquals(b.address(), onA.linkAddress());
        assertEquals(b.port().attributes().lid(), onA.lid());
        assertEquals(ip.link("a").serviceLevel(), onA.serviceLevel());
        assertEquals(0, onA.queuedFrames());
        NeighbourEntry onB = ip.neighbour(arp, "b", A);
        assertNotNull("b learned a from its request (RFC 826 merge) to answer it", onB);
        assertEquals(ip.link("a").address(), onB.linkAddress());

        String table = ip.run("ipoib:neigh a");
        assertTrue(table, table.contains(B) && table.contains("RESOLVED") && table.contains(b.address().toString()));
    }

    @Test
    public void pathInformationIsPendingThenReadyAndNoSuchNodeForNobody() throws Exception {
        NeighbourResolver arp = ip.arp();
        arp.flush("a");
        PathInfoAnswer first = arp.pathInfo("a", InetAddress.getByName(B));
        PathInfo later;
        if (first instanceof PathInfoAnswer.Pending pending) {
            later = pending.path().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } else {
            throw new AssertionError("a flushed entry is resolved first: " + first);
        }
        IpoibLink a = ip.link("a");
        IpoibLink b = ip.link("b");
        assertEquals(b.gid(), later.destinationGid());
        assertEquals(a.gid(), later.sourceGid());
        assertEquals(b.port().attributes().lid(), later.destinationLid());
        assertEquals(a.port().attributes().lid(), later.sourceLid());
        assertEquals(2048, later.mtu().bytes());
        PathInfoAnswer now = arp.pathInfo("a", InetAddress.getByName(B));
        assertTrue(now.toString(), now instanceof PathInfoAnswer.Ready r && r.path().equals(later));

        // Two addresses nobody has, resolved at once (each takes its five requests, here 20 ms
        // apart: nobody answers them however slow the machine): one through the service, one
        // through the shell.
        ip.configure("ipoib.arp", "retransmitMillis", 20);
        ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(retransmitMillis=20))");
        PathInfoAnswer nobody = arp.pathInfo("a", InetAddress.getByName("10.1.0.99"));
        CompletableFuture<PathInfo> never = ((PathInfoAnswer.Pending) nobody).path().toCompletableFuture();
        String shown = ip.run("ipoib:resolve " + B);
        assertTrue(shown, shown.contains("dgid " + b.gid()) && shown.contains("dlid " + b.port().attributes().lid()));
        GogoShell.Result failed = ip.shell("ipoib:resolve -W 3 10.1.0.98");
        assertNotNull(failed.output(), failed.error());
        assertTrue(failed.error().getMessage(), failed.error().getMessage().contains("no such node"));

        ExecutionException e = expectFailure(never);
        assertTrue(e.getCause() instanceof NoSuchNodeException);
        assertTrue(e.getCause().getMessage(), e.getCause().getMessage().contains("no answer to 5"));
        assertTrue(arp.pathInfo("a", InetAddress.getByName("10.1.0.99")) instanceof PathInfoAnswer.NoSuchNode);
        assertTrue(arp.pathInfo("nosuch", InetAddress.getByName(B)) instanceof PathInfoAnswer.NoSuchNode);
    }

    private static ExecutionException expectFailure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + f.get());
        } catch (ExecutionException e) {
            return e;
        }
    }

    /**
     * The requests that reach nobody are repeated until one gets through: b's port loses every
     * packet until a's first retransmission, then none. (Retransmission times and counts are
     * checked on a manual clock in ArpEngineTest and NeighbourEngineTest.)
     */
    @Test
    public void resolutionSucceedsUnderLossThroughRetransmission() throws Exception {
        NeighbourResolver arp = ip.arp();
        // Twenty requests: the loss ends long before the resolution would give up, however slow this machine.
        ip.configure("ipoib.arp", "requests", 20);
        ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(requests=20))");
        arp.flush(null);
        ip.run("fabric:fault loss 100 loop1/1");
        try {
            PathInfoAnswer answer = arp.pathInfo("a", InetAddress.getByName(B));
            assertTrue(answer.toString(), answer instanceof PathInfoAnswer.Pending);
            // The loss first, then a retransmission after it (requests are lost until the fault is
            // cleared, so one comes within retransmitMillis): a retransmission counted before the
            // request went out, with the control loop late on a busy machine, proves nothing.
            Await.until("a request lost", Duration.ofSeconds(10),
                    () -> ip.run("fabric:stats").matches("(?s).*drop_fault_loss\\s+[1-9].*"), () -> ip.run("fabric:stats"));
            long afterLoss = ip.counter(arp, "solicitations_retransmitted");
            Await.until("a request retransmitted after the loss", Duration.ofSeconds(10),
                    () -> ip.counter(arp, "solicitations_retransmitted") > afterLoss, () -> arp.counters().toString());
            ip.run("fabric:clear");
            PathInfo path = ((PathInfoAnswer.Pending) answer).path().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(ip.link("b").gid(), path.destinationGid());
        } finally {
            ip.run("fabric:clear");
        }
    }

    @Test
    public void aFailingPathRecordLookupFreesTheQueuedFramesAndCountsThem() throws Exception {
        NeighbourResolver arp = ip.arp();
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
        arp.flush("a");
        long dropped = ip.counter(arp, "dropped_path_failure");
        long failures = ip.counter(arp, "path_failures");
        ip.run("fabric:fault sa-error 100");
        try {
            CompletableFuture<EchoReply> reply = ip.host().echo("a", InetAddress.getByName(B), 0x4243, 1, 32,
                    Duration.ofSeconds(5)).toCompletableFuture();
            Await.until("the queued echo request is dropped and counted", Duration.ofSeconds(5),
                    () -> ip.counter(arp, "dropped_path_failure") > dropped, () -> arp.counters().toString());
            assertTrue("no reply while the SA fails every PathRecord Get: the request was dropped",
                    !reply.isDone() || reply.isCompletedExceptionally());
            assertTrue(ip.counter(arp, "path_failures") > failures);
            assertNull("the entry is removed", ip.neighbour(arp, "a", B));
        } finally {
            ip.run("fabric:clear");
        }
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
    }

    /**
     * A peer reset gets new QPNs; with gratuitous ARP it announces the new one as soon as it is up
     * again and the entry follows at once. Without the announcement, revalidation heals the entry
     * within one period: that is NeighbourEngineTest's, on a manual clock
     * ({@code usedEntriesAreRevalidatedUnicastFirstThenBroadcast},
     * {@code aNewQpnOfTheSamePortHealsTheEntryWithoutANewPathLookup}).
     */
    @Test
    public void aPeerResetWithNewQpnsIsHealedByItsGratuitousArp() throws Exception {
        NeighbourResolver arp = ip.arp(); // gratuitous ARP on, revalidation a minute away (set before each test)
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
        long healed = ip.counter(arp, "qpn_changes");
        int secondQpn = ip.link("b").qpn().value();
        ip.run("fabric:reset loop1/1");
        Await.until("b is UP with a new QPN", Duration.ofSeconds(10),
                () -> ip.link("b").qpn() != null && ip.link("b").qpn().value() != secondQpn);
        Await.until("a's entry has b's new QPN from the gratuitous ARP", Duration.ofSeconds(5),
                () -> {
                    try {
                        NeighbourEntry e = ip.neighbour(arp, "a", B);
                        return e != null && e.linkAddress() != null
                                && e.linkAddress().qpn().equals(ip.link("b").qpn());
                    } catch (Exception ex) {
                        throw new AssertionError(ex);
                    }
                }, () -> ip.neighbours().toString());
        assertTrue(ip.counter(arp, "qpn_changes") > healed);
        ip.pingUntilReply("a", B, Duration.ofSeconds(3));
    }

    /**
     * A remote LID change: unicast to the old LID is lost until the peer's path
     * is queried again. The peer announces itself (gratuitous ARP) when its LID changes, and the
     * announcement makes us query the path at once: traffic resumes within a PathRecord query
     * rather than after revalidation (60 s here; without the announcement the outage was the
     * revalidation period plus one retransmission, bounded on a manual clock in
     * NeighbourEngineTest, which still repairs a lost announcement). The bound checked here is
     * 10 s of wall clock, far below the revalidation period. An SM change makes the link query
     * every path again while the entries keep sending.
     */
    @Test
    public void aPeersNewLidIsLearntFromItsAnnouncementAndAnSmChangeRefreshesWithoutFlushing() throws Exception {
        NeighbourResolver arp = ip.arp();
        // Revalidation a minute away: it cannot be what repairs the path within the bound below.
        ip.configure("ipoib.arp", "revalidateMillis", 60_000L);
        ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(revalidateMillis=60000))");
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
        long refreshes = ip.counter(arp, "path_refreshes");
        long heard = ip.counter(arp, "announcements_heard");
        int newLid = ip.link("b").port().attributes().lid().value() == 0x40 ? 0x41 : 0x40;
        ip.run("fabric:lid loop1/1 " + newLid);
        long changed = System.nanoTime();
        ip.pingUntilReply("a", B, Duration.ofSeconds(10));
        long took = (System.nanoTime() - changed) / 1_000_000;
        System.out.println("ArpIT: traffic resumed " + took + " ms after the remote LID change (revalidateMillis 60000;"
                + " before the announcement it took revalidateMillis plus one retransmission)");
        assertEquals(newLid, ip.neighbour(arp, "a", B).lid().value());
        assertTrue("b announced itself after its LID changed and a heard it",
                ip.counter(arp, "announcements_heard") > heard);
        assertTrue("a queried the path to b again", ip.counter(arp, "path_refreshes") > refreshes);
        assertEquals("the link's path has the new LID", newLid,
                ip.link("a").paths().get(ip.link("b").gid()).destinationLid().value());

        ip.configure("ipoib.arp", "revalidateMillis", 60_000L);
        ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(revalidateMillis=60000))");
        long queries = pathQueries("a");
        long lookups = ip.counter(arp, "path_lookups");
        ip.run("fabric:smchange");
        Await.until("an SM change makes the link query its paths again", Duration.ofSeconds(10),
                () -> pathQueries("a") > queries, () -> run("ipoib:paths a"));
        assertNotNull("the entry stays: refreshed, not flushed", ip.neighbour(arp, "a", B));
        assertEquals("the resolver keeps its path reference", lookups, ip.counter(arp, "path_lookups"));
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
    }

    private String run(String command) {
        try {
            return ip.run(command);
        } catch (Exception e) {
            throw new AssertionError(command, e);
        }
    }

    /** The path_queries figure of a link's path cache, from {@code ipoib:paths}. */
    private long pathQueries(String link) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("path_queries (\\d+)").matcher(run("ipoib:paths " + link));
        if (!m.find()) {
            throw new AssertionError("no path_queries in ipoib:paths " + link);
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * Multicast, broadcast and own addresses are refused as neighbours
     * with the reason; the frames dropped by the resolver for an address that never answers are
     * visible in ipoib:stats.
     */
    @Test
    public void nonNeighboursAreRefusedAndResolverDropsAreShownInStats() throws Exception {
        String lladdr = ip.link("b").address().toString();
        for (String[] bad : new String[][] {{"224.0.0.1", "it is a multicast address"},
                {"255.255.255.255", "it is the limited broadcast address"},
                {A, "it is an address of interface a itself"}}) {
            GogoShell.Result r = ip.shell("ipoib:neigh add a " + bad[0] + " " + lladdr);
            assertTrue(r.all(), r.all().contains(bad[0] + " cannot be a neighbour: " + bad[1]));
        }
        assertNull(ip.neighbour(ip.arp(), "a", "224.0.0.1"));

        long before = ip.counter(ip.arp(), "dropped_resolution_failed") + ip.counter(ip.arp(), "dropped_queue_full");
        // Nobody has it (an address no other test asks for, so no FAILED entry holds it): three
        // requests queued, two dropped as the queue is full, the three dropped when resolution fails.
        ip.shell("ipoib:ping -c 5 -i 0.01 -W 0.2 10.1.0.97");
        Await.until("the resolver counts the drops", Duration.ofSeconds(20),
                () -> ip.counter(ip.arp(), "dropped_resolution_failed") + ip.counter(ip.arp(), "dropped_queue_full")
                        > before, () -> ip.arp().counters().toString());
        String stats = ip.run("ipoib:stats");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("ipv4 resolver \\(all interfaces\\): dropped (\\d+)")
                .matcher(stats);
        assertTrue(stats, m.find());
        assertTrue(stats, Long.parseLong(m.group(1)) > 0);
    }

    /**
     * A datagram dropped by the HCA for a wrong Q_Key never reaches an interface;
     * ipoib:stats shows it as the receiving port's Q_Key violations.
     */
    @Test
    public void datagramsWithAWrongQKeyShowAsQKeyViolationsOfTheReceivingPort() throws Exception {
        IpoibLink a = ip.link("a");
        IpoibLink b = ip.link("b");
        ipoib.api.verbs.Port port = a.port();
        long before = b.port().qkeyViolations();
        ipoib.api.verbs.CompletionQueue cq = port.createCompletionQueue(16);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined();
             ipoib.api.verbs.UdQueuePair stranger = port.createUdQueuePair(new ipoib.api.verbs.UdQueuePairConfig(cq, cq,
                     4, 4, 0, ipoib.api.QKey.of(0x1234), false))) {
            MemorySegment buffer = arena.allocate(64);
            ipoib.api.verbs.MemoryRegion region = port.device().registerMemory(buffer);
            ipoib.api.verbs.AddressHandle toB = port.createAddressHandle(
                    ipoib.api.verbs.AddressVector.local(b.port().attributes().lid(), 0));
            // RFC 4391 frames carry the broadcast group's Q_Key (0x0b1b); this one carries 0x1234.
            assertTrue(stranger.postSend(1, region, 0, 64, toB, b.qpn(), ipoib.api.QKey.of(0x1234)));
            Await.until("the receiving port counts the Q_Key violation", Duration.ofSeconds(10),
                    () -> b.port().qkeyViolations() == before + 1, () -> "qkey_violations " + b.port().qkeyViolations());
            String stats = ip.run("ipoib:stats " + b.name());
            assertTrue(stats, stats.contains("qkey_violations " + (before + 1)));
            toB.close();
            region.close();
        } finally {
            cq.close();
        }
    }

    @Test
    public void permanentEntriesNeedNoArpAndSurviveAFlush() throws Exception {
        NeighbourResolver arp = ip.arp();
        IpoibLink b = ip.link("b");
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
        arp.flush("a");
        String added = ip.run("ipoib:neigh add a " + B + " " + b.address());
        assertTrue(added, added.contains("RFC 4391 §9.4"));
        long requests = ip.counter(arp, "requests_sent");
        assertNotNull(ip.ping("a", B, Duration.ofSeconds(5)));
        NeighbourEntry e = ip.neighbour(arp, "a", B);
        assertTrue(e.permanent());
        assertEquals(NeighbourState.RESOLVED, e.state());
        assertEquals("the permanent entry needs no ARP request", requests, ip.counter(arp, "requests_sent"));
        ip.run("ipoib:neigh flush a");
        assertNotNull("a flush keeps permanent entries", ip.neighbour(arp, "a", B));
        assertTrue(ip.run("ipoib:neigh").contains("PERMANENT"));
        ip.run("ipoib:neigh del a " + B);
        assertNull(ip.neighbour(arp, "a", B));
    }

    @Test
    public void udpDatagramsFlowAndOversizeOnesAreRefusedClearly() throws Exception {
        ipoib.api.host.UdpService udp = ip.await(ipoib.api.host.UdpService.class, null);
        LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
        try (UdpSocket server = udp.open(7000, (UdpDatagram d) -> received.add(d.link() + " "
                + d.source().getHostAddress() + ":" + d.sourcePort() + " -> " + d.destination().getHostAddress() + ":"
                + d.destinationPort() + " " + new String(d.payload().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8)));
             UdpSocket client = udp.open(0, d -> { })) {
            MemorySegment hello = MemorySegment.ofArray("hello over IPoIB".getBytes(StandardCharsets.UTF_8));
            TransmitResult first = client.send(InetAddress.getByName(B), 7000, hello);
            assertTrue(first.toString(), !first.isDrop());
            String got = received.poll(10, TimeUnit.SECONDS);
            assertEquals("b " + A + ":" + client.localPort() + " -> " + B + ":7000 hello over IPoIB", got);

            client.connect("a", InetAddress.getByName(B), 7000);
            for (int i = 0; i < 3; i++) {
                assertEquals(TransmitResult.SENT, client.send(hello));
            }
            for (int i = 0; i < 3; i++) {
                assertNotNull(received.poll(10, TimeUnit.SECONDS));
            }

            IllegalArgumentException tooBig = null;
            try {
                client.send(MemorySegment.ofArray(new byte[2017]));
            } catch (IllegalArgumentException e) {
                tooBig = e;
            }
            assertNotNull("a datagram over the MTU is refused", tooBig);
            assertTrue(tooBig.getMessage(), tooBig.getMessage().contains("2017 octets of payload")
                    && tooBig.getMessage().contains("MTU 2044") && tooBig.getMessage().contains("at most 2016")
                    && tooBig.getMessage().contains("fragmentation is not supported"));
            assertEquals(TransmitResult.SENT, client.send(MemorySegment.ofArray(new byte[2016])));
            try {
                udp.open(7000, d -> { });
                throw new AssertionError("port 7000 is in use");
            } catch (IllegalStateException expected) {
                assertTrue(expected.getMessage().contains("7000"));
            }
        }
    }

    @Test
    public void theShellAddsAddressesAndPingsLikeTheSystemPing() throws Exception {
        String added = ip.run("ipoib:addr add a 10.2.0.1/16");
        assertTrue(added, added.contains("added 10.2.0.1/16 to a"));
        ip.run("ipoib:addr add b 10.2.0.2/16");
        String list = ip.run("ipoib:addr");
        assertTrue(list, list.contains("10.2.0.1/16") && list.contains("PREFERRED") && list.contains("configured"));
        String ping = ip.run("ipoib:ping -I a -c 3 -i 0.1 10.2.0.2");
        assertTrue(ping, ping.contains("PING 10.2.0.2 from 10.2.0.1 a: 56(84) bytes of data."));
        assertTrue(ping, ping.matches("(?s).*64 bytes from 10\\.2\\.0\\.2: icmp_seq=1 ttl=64 time=\\d+\\.\\d{3} ms.*"));
        assertTrue(ping, ping.contains("--- 10.2.0.2 ping statistics ---"));
        assertTrue(ping, ping.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(ping, ping.contains("rtt min/avg/max/mdev = "));

        GogoShell.Result lost = ip.shell("ipoib:ping -c 2 -i 0.1 -W 0.1 10.2.0.77");
        assertNotNull("all lost: the command fails", lost.error());
        assertTrue(lost.all(), lost.all().contains("2 packets transmitted, 0 received, 100% packet loss"));

        ip.run("ipoib:addr del a 10.2.0.1");
        ip.run("ipoib:addr del b 10.2.0.2");
        Await.until("the addresses are gone", Duration.ofSeconds(5), () -> {
            try {
                return ip.findAddress("a", "10.2.0.1") == null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        org.osgi.service.cm.Configuration[] left = configurationAdmin.listConfigurations(
                "(service.factoryPid=ipoib.address)");
        assertNull("the address configurations were deleted", left);
    }

    @Test
    public void wrongArgumentsPrintUsageAndAnErrorNotAStackTrace() {
        String[][] cases = {
                {"ipoib:ping", "no destination address", "usage: ipoib:ping"},
                {"ipoib:ping -c x 10.1.0.2", "option -c value 'x' is not a number", "usage: ipoib:ping"},
                {"ipoib:ping -c 0 10.1.0.2", "outside 1..100000", "usage: ipoib:ping"},
                {"ipoib:ping -I nosuch 10.1.0.2", "no interface 'nosuch'", "usage: ipoib:ping"},
                {"ipoib:ping -s 3000 10.1.0.2", "does not fit the MTU 2044", "usage: ipoib:ping"},
                {"ipoib:ping 10.1.0", "invalid address '10.1.0'", "usage: ipoib:ping"},
                {"ipoib:addr add a 10.9.9.9/33", "prefix length 33 outside 0..32", "usage: ipoib:addr"},
                {"ipoib:addr add a", "add needs an interface and an address", "usage: ipoib:addr"},
                {"ipoib:addr frobnicate a b", "unknown subcommand 'frobnicate'", "usage: ipoib:addr"},
                {"ipoib:neigh add a 10.1.0.9 00:11", "invalid link address", "usage: ipoib:neigh"},
                {"ipoib:neigh del a 10.1.0.250", "no entry for 10.1.0.250 on a", "usage: ipoib:neigh"},
                {"ipoib:neigh flush nosuch", "no interface 'nosuch'", "usage: ipoib:neigh"},
                {"ipoib:resolve -W never 10.1.0.2", "option -W value 'never' is not a number", "usage: ipoib:resolve"},
                // Out of range, with the range, not "not a number"
                {"ipoib:create loop0 99999999999 0xffff", "port '99999999999' is out of range: allowed 1..254",
                        "usage: ipoib:create"},
                {"fabric:lid loop1/1 99999999999", "LID '99999999999' is out of range: allowed 1..49151",
                        "usage: fabric:lid"},
                {"fabric:lid loop1/99999999999 0x20", "port '99999999999' is out of range: allowed 1..254",
                        "usage: fabric:lid"},
        };
        for (String[] c : cases) {
            GogoShell.Result s = ip.shell(c[0]);
            assertNotNull(c[0] + " fails", s.error());
            assertTrue(c[0] + ": " + s.error(), s.error() instanceof IllegalArgumentException);
            assertTrue(c[0] + ": " + s.error().getMessage(), s.error().getMessage().contains(c[1]));
            assertTrue(c[0] + ": " + s.error().getMessage(), s.error().getMessage().contains(c[2]));
        }
        String help = ip.run("help ipoib:ping");
        assertTrue(help, help.contains("echo requests"));
    }

    @Test
    public void badConfigurationIsRefusedWithThePropertyValueAndRange() throws Exception {
        LogReaderService logs = ip.await(LogReaderService.class, null);
        ip.configure("ipoib.arp", "retransmitMillis", 5);
        // Checked against the metatype (ipoib.runtime ConfigCheck): property, value, range.
        Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                "invalid ipoib.arp property 'retransmitMillis' value 5 is out of range: allowed 10..60000"));
        ip.configure("ipoib.arp", "retransmitMillis", 100, "serviceLevel", "fastest");
        Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                "invalid ipoib.arp property 'serviceLevel' value 'fastest' is not allowed: allowed one of broadcast, path"));
        ip.configure("ipoib.arp", "serviceLevel", "broadcast");
        assertNotNull("the resolver keeps working", ip.ping("a", B, Duration.ofSeconds(5)));

        org.osgi.service.cm.Configuration bad = configurationAdmin.getFactoryConfiguration("ipoib.address", "bad", "?");
        java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
        props.put("link", "a");
        props.put("address", "10.1.0.300/24");
        bad.update(props);
        String pid = bad.getPid();
        try {
            Await.until("the address configuration is refused", Duration.ofSeconds(10), () -> logged(logs,
                    "invalid ipoib.address property 'address' value '10.1.0.300/24'"));
            // A refused first configuration is not kept: nothing stored ran before it.
            Await.until("the refused configuration is deleted", Duration.ofSeconds(10), () -> stored(pid) == null);
        } finally {
            org.osgi.service.cm.Configuration left = stored(pid);
            if (left != null) {
                left.delete();
            }
        }
    }

    private org.osgi.service.cm.Configuration stored(String pid) {
        try {
            org.osgi.service.cm.Configuration[] found = configurationAdmin.listConfigurations("(service.pid=" + pid + ")");
            return found == null ? null : found[0];
        } catch (java.io.IOException | org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** ipoib.host refuses 2^32 + 1 as TTL and "nope" as a boolean (read as they come, they made TTL 1 and stopped echo replies). */
    @Test
    public void hostConfigurationIsCheckedBeforeItApplies() throws Exception {
        LogReaderService logs = ip.await(LogReaderService.class, null);
        try {
            ip.configure("ipoib.host", "ttl", 4294967297L);
            Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                    "invalid ipoib.host property 'ttl' value 4294967297 is out of range: allowed 1..255; "
                            + "ipoib.host keeps ttl=64 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false"));
            ipoib.api.host.EchoReply reply = ip.ping("a", B, Duration.ofSeconds(5));
            assertNotNull("the host still answers", reply);
            assertEquals("the host answers with the TTL in force, not 2^32 + 1 truncated to 1", 64, reply.ttl());
            ip.configure("ipoib.host", "answerEcho", "nope");
            Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                    "invalid ipoib.host property 'answerEcho' value 'nope' is not a boolean: allowed true or false"));
            assertNotNull("echo requests are still answered", ip.ping("a", B, Duration.ofSeconds(5)));
            ip.configure("ipoib.host", "ttl", "abc");
            Await.until("the refusal names the property", Duration.ofSeconds(10), () -> logged(logs,
                    "invalid ipoib.host property 'ttl' value 'abc' is not a number: allowed 1..255"));
            ip.configure("ipoib.host", "ttl", 7, "answerEcho", true);
            Await.until("a valid TTL applies", Duration.ofSeconds(10), () -> {
                try {
                    ipoib.api.host.EchoReply r = ip.ping("a", B, Duration.ofSeconds(5));
                    return r != null && r.ttl() == 7;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        } finally {
            ip.configure("ipoib.host", "ttl", 64, "answerEcho", true);
        }
    }

    /**
     * IPv4 echo to the broadcast address goes unanswered by default, as Linux's
     * icmp_echo_ignore_broadcasts=1; with echoIgnoreBroadcasts=false the peer answers from its own address.
     */
    @Test
    public void echoToTheBroadcastAddressIsIgnoredByDefaultAndAnsweredWhenConfigured() throws Exception {
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
        long ignored = ip.host().counters().getOrDefault("echo_requests_to_groups_ignored", 0L);
        CompletableFuture<EchoReply> toBroadcast = ip.host().echo("a", InetAddress.getByName("10.1.0.255"), 0x4244, 1,
                32, Duration.ofSeconds(5)).toCompletableFuture();
        Await.until("the peer counts the ignored request", Duration.ofSeconds(10),
                () -> ip.host().counters().getOrDefault("echo_requests_to_groups_ignored", 0L) > ignored,
                () -> ip.host().counters().toString());
        assertTrue("no answer to a broadcast echo by default: the request was ignored",
                !toBroadcast.isDone() || toBroadcast.isCompletedExceptionally());
        try {
            ip.configure("ipoib.host", "echoIgnoreBroadcasts", false);
            Await.until("the peer answers a broadcast echo from its own address", Duration.ofSeconds(10), () -> {
                try {
                    ipoib.api.host.EchoReply r = ip.ping("a", "10.1.0.255", Duration.ofMillis(300));
                    return r != null && r.from().getHostAddress().equals(B);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
        } finally {
            ip.configure("ipoib.host", "echoIgnoreBroadcasts", true);
        }
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

    @Test
    public void malformedFramesAreCountedAndDropped() throws Exception {
        NeighbourResolver arp = ip.arp();
        long arpMalformed = ip.counter(arp, "rx_malformed");
        long ipMalformed = ip.host().counters().get("rx_malformed");
        byte[] ethernetArp = new byte[56];
        ethernetArp[1] = 1; // hardware type 1 (Ethernet), not 32
        ip.link("a").sendBroadcast(ipoib.api.link.EtherType.ARP, MemorySegment.ofArray(ethernetArp));
        ip.link("a").sendBroadcast(ipoib.api.link.EtherType.ARP, MemorySegment.ofArray(new byte[10]));
        byte[] badIp = new byte[28];
        badIp[0] = 0x45; // IPv4 header with a wrong checksum
        badIp[3] = 28;
        ip.link("a").sendBroadcast(ipoib.api.link.EtherType.IPV4, MemorySegment.ofArray(badIp));
        Await.until("b counts the malformed ARP packets", Duration.ofSeconds(5),
                () -> ip.counter(arp, "rx_malformed") == arpMalformed + 2, () -> arp.counters().toString());
        Await.until("b counts the malformed IPv4 packet", Duration.ofSeconds(5),
                () -> ip.host().counters().get("rx_malformed") == ipMalformed + 1);
        assertNotNull("and goes on working", ip.ping("a", B, Duration.ofSeconds(5)));
    }

    @Test
    public void neighbourEventsArePosted() throws Exception {
        LinkedBlockingQueue<org.osgi.service.event.Event> events = new LinkedBlockingQueue<>();
        java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
        props.put(org.osgi.service.event.EventConstants.EVENT_TOPIC, "ipoib/neighbour/*");
        var reg = context.registerService(org.osgi.service.event.EventHandler.class, events::add, props);
        try {
            ip.arp().flush("a");
            assertNotNull(ip.ping("a", B, Duration.ofSeconds(5)));
            org.osgi.service.event.Event e;
            do {
                e = events.poll(10, TimeUnit.SECONDS);
                assertNotNull("a NEIGHBOUR_RESOLVED event", e);
            } while (!("a".equals(e.getProperty("link")) && B.equals(e.getProperty("address"))));
            assertEquals("ipoib/neighbour/RESOLVED", e.getTopic());
            assertEquals(ip.link("b").address().toString(), e.getProperty("linkAddress"));
        } finally {
            reg.unregister();
        }
    }

    @Test
    public void hostCountersShowWhatHappened() throws Exception {
        ip.pingUntilReply("a", B, Duration.ofSeconds(5));
        // b counts its reply after the link took it, on its own thread: a may have the reply first.
        Await.until("both hosts' echo counters moved", Duration.ofSeconds(5), () -> {
            Map<String, Long> c = ip.host().counters();
            return c.get("echo_requests_sent") > 0 && c.get("echo_replies_received") > 0
                    && c.get("echo_requests_received") > 0 && c.get("echo_replies_sent") > 0;
        }, () -> ip.host().counters().toString());
    }
}
