package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import java.net.InetAddress;
import java.time.Duration;
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

/**
 * Partitions hold: four interfaces in one IP subnet, two in the default partition (a on loop0,
 * b on loop1) and two in a second one (c on loop0, d on loop1, P_Key 0x8001). ARP resolves
 * within a partition and never across: the broadcast groups differ. The second partition has
 * SL 5 but no IPoIB broadcast group configured, so its interfaces create one with SL 0: the SL
 * of unicast follows the configured method (the broadcast group's, or the PathRecord's).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class PartitionIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.arp",
            "ipoib.host");

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
    public void partitions() throws Exception {
        ip = new IpFixture(context, configurationAdmin);
        if (ip.link("c") == null) {
            ip.configure("ipoib.verbs.loopback", "partitions", new String[] {
                    "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;",
                    "Second=0x0001, sl=5, defmember=full : ALL ;"});
            ip.configure("ipoib.arp", "retransmitMillis", 100, "requests", 3, "failedHoldMillis", 2000L);
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
            ip.createLink("c", "loop0", "0x8001");
            ip.createLink("d", "loop1", "0x8001");
        }
        for (String l : new String[] {"a", "b", "c", "d"}) {
            ip.awaitUp(l);
        }
        if (ip.findAddress("a", "10.3.0.1") == null) {
            ip.address("a", "10.3.0.1", 24);
            ip.address("b", "10.3.0.2", 24);
            ip.address("c", "10.3.0.3", 24);
            ip.address("d", "10.3.0.4", 24);
        }
    }

    @Test
    public void arpResolvesWithinAPartitionAndNeverAcross() throws Exception {
        NeighbourResolver arp = ip.arp();
        ip.pingUntilReply("a", "10.3.0.2", Duration.ofSeconds(5));
        ip.pingUntilReply("c", "10.3.0.4", Duration.ofSeconds(5));
        assertEquals(ip.link("d").address(), ip.neighbour(arp, "c", "10.3.0.4").linkAddress());

        // Both silences waited out together: a's ping on a thread of its own. Each request waits
        // for its resolution, which gives up after this class's three ARP requests 100 ms apart:
        // 500 ms outlasts that, and no reply can follow a request dropped with its resolution.
        java.util.concurrent.FutureTask<ipoib.api.host.EchoReply> aToD = new java.util.concurrent.FutureTask<>(
                () -> ip.ping("a", "10.3.0.4", Duration.ofMillis(500)));
        Thread.ofPlatform().daemon().name("ping-a-to-d").start(aToD);
        assertNull("c (P_Key 0x8001) cannot reach b (0xffff)", ip.ping("c", "10.3.0.2", Duration.ofMillis(500)));
        assertNull("a (0xffff) cannot reach d (0x8001)", aToD.get());
        Await.until("c's entry of b FAILED", Duration.ofSeconds(5), () -> {
            try {
                NeighbourEntry e = ip.neighbour(arp, "c", "10.3.0.2");
                return e != null && e.state() == NeighbourState.FAILED;
            } catch (Exception ex) {
                throw new AssertionError(ex);
            }
        }, () -> ip.neighbours().toString());
        assertTrue(arp.pathInfo("c", InetAddress.getByName("10.3.0.2")) instanceof PathInfoAnswer.NoSuchNode);
        assertNull("b never heard c's requests", ip.neighbour(arp, "b", "10.3.0.3"));
        assertNull("d never heard a's requests", ip.neighbour(arp, "d", "10.3.0.1"));
        GogoShell.Result ping = ip.shell("ipoib:ping -I c -c 2 -i 0.1 -W 0.5 10.3.0.2");
        assertNotNull(ping.error());
        assertTrue(ping.all(), ping.all().contains("100% packet loss"));
    }

    /** On a limited-member port, ipoib:links shows the P_Key in use (0x7fff). */
    @Test
    public void aLimitedMemberShowsTheMembershipInUse() throws Exception {
        String[] original = {
                "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;",
                "Second=0x0001, sl=5, defmember=full : ALL ;"};
        try {
            ip.configure("ipoib.verbs.loopback", "partitions", new String[] {
                    "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : loop0, loop1=limited ;",
                    "Second=0x0001, sl=5, defmember=full : ALL ;"});
            Await.until("b is UP as a limited member and ipoib:links says so", Duration.ofSeconds(20), () -> {
                String links = ip.run("ipoib:links");
                int at = links.indexOf("b: UP");
                return at >= 0 && links.indexOf("pkey 0xffff (in use 0x7fff)", at) > at
                        && links.indexOf("pkey 0xffff (in use 0x7fff)", at) < links.indexOf('\n', links.indexOf("pkey", at));
            }, () -> ip.run("ipoib:links"));
            String links = ip.run("ipoib:links");
            String a = links.substring(links.indexOf("a: "), links.indexOf("b: "));
            assertTrue(a, a.contains("pkey 0xffff  broadcast") && !a.contains("in use"));
        } finally {
            ip.configure("ipoib.verbs.loopback", "partitions", original);
            Await.until("b is a full member again", Duration.ofSeconds(20),
                    () -> !ip.run("ipoib:links").contains("in use 0x7fff"), () -> ip.run("ipoib:links"));
        }
    }

    @Test
    public void theServiceLevelOfUnicastFollowsTheConfiguredMethod() throws Exception {
        NeighbourResolver arp = ip.arp();
        assertEquals("c created its partition's broadcast group with SL 0", 0, ip.link("c").serviceLevel());
        try {
            ip.configure("ipoib.arp", "serviceLevel", "broadcast");
            ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(serviceLevel=broadcast))");
            arp.flush("c");
            ip.pingUntilReply("c", "10.3.0.4", Duration.ofSeconds(5));
            NeighbourEntry byGroup = ip.neighbour(arp, "c", "10.3.0.4");
            assertEquals(0, byGroup.serviceLevel());
            PathInfo path = ((PathInfoAnswer.Ready) arp.pathInfo("c", InetAddress.getByName("10.3.0.4"))).path();
            assertEquals("the PathRecord carries the partition's SL", 5, path.serviceLevel());
            assertEquals(0x8001, path.pkey().value());

            ip.configure("ipoib.arp", "serviceLevel", "path");
            ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv4)(serviceLevel=path))");
            arp.flush("c");
            ip.pingUntilReply("c", "10.3.0.4", Duration.ofSeconds(5));
            assertEquals(5, ip.neighbour(arp, "c", "10.3.0.4").serviceLevel());
            PathInfoAnswer answer = arp.pathInfo("c", InetAddress.getByName("10.3.0.4"));
            PathInfo same = answer instanceof PathInfoAnswer.Pending p
                    ? p.path().toCompletableFuture().get(5, TimeUnit.SECONDS) : ((PathInfoAnswer.Ready) answer).path();
            assertEquals(ip.link("d").gid(), same.destinationGid());
        } finally {
            ip.configure("ipoib.arp", "serviceLevel", "broadcast");
        }
    }
}
