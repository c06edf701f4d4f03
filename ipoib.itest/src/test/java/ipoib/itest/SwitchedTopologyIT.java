package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * The loopback fabric loaded with the two-switch example topology (examples/two-switches.net):
 * interface a on loop0 behind switch sw1 and b on loop1 behind sw2 ping each other through both
 * switches and one of the two links between them; with that link down the emulated SM reroutes
 * over the other one and the ping answers again.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class SwitchedTopologyIT {
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
    public void twoSwitches() throws Exception {
        ip = new IpFixture(context, configurationAdmin);
        if (ip.link("a") == null) {
            ip.configure("ipoib.verbs.loopback", "topology", topology());
            ip.configure("ipoib.arp", "retransmitMillis", 100, "requests", 3, "failedHoldMillis", 2000L);
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        if (ip.findAddress("a", "10.7.0.1") == null) {
            ip.address("a", "10.7.0.1", 24);
            ip.address("b", "10.7.0.2", 24);
        }
    }

    /** The example topology file of two switches, examples/two-switches.net in the workspace. */
    private static String topology() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(dir.resolve("examples"))) {
            dir = dir.getParent();
        }
        return dir.resolve("examples/two-switches.net").toString();
    }

    /** Packets sw1 sent over one inter-switch port, from fabric:ports. */
    private long sent(String port) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(port) + " +xmit_packets (\\d+)").matcher(ip.run("fabric:ports"));
        assertTrue(port + " in fabric:ports", m.find());
        return Long.parseLong(m.group(1));
    }

    @Test
    public void aPingCrossesBothSwitchesAndSurvivesAnInterSwitchLinkGoingDown() throws Exception {
        String topology = ip.run("fabric:topology");
        assertTrue(topology, topology.contains("switch sw1") && topology.contains("switch sw2"));
        assertTrue(topology, topology.matches("(?s).*hca    hca0 .*device loop0.*\\[1\\] \"sw1\"\\[1\\].*"));
        assertTrue(topology, topology.matches("(?s).*hca    hca1 .*device loop1.*\\[1\\] \"sw2\"\\[1\\].*"));

        ip.pingUntilReply("a", "10.7.0.2", Duration.ofSeconds(10));
        long before7 = sent("sw1/7");
        long before8 = sent("sw1/8");
        GogoShell.Result ping = ip.shell("ipoib:ping -I a -c 3 -i 0.05 -W 1 10.7.0.2");
        assertNull(ping.all(), ping.error());
        assertTrue(ping.all(), ping.all().contains(" 0% packet loss"));
        long over7 = sent("sw1/7") - before7;
        long over8 = sent("sw1/8") - before8;
        assertEquals("the three requests crossed one inter-switch link: " + over7 + " over sw1/7, " + over8
                + " over sw1/8", 3, Math.max(over7, over8));
        String used = over7 >= over8 ? "7" : "8";

        assertTrue(ip.run("fabric:down sw1 " + used).startsWith("sw1/" + used + " DOWN"));
        Duration healed = ip.pingUntilReply("a", "10.7.0.2", Duration.ofSeconds(10));
        String other = used.equals("7") ? "sw1/8" : "sw1/7";
        long otherBefore = sent(other);
        ping = ip.shell("ipoib:ping -I a -c 2 -i 0.05 -W 1 10.7.0.2");
        assertTrue(ping.all(), ping.all().contains(" 0% packet loss"));
        assertTrue("the other link carries them after " + healed.toMillis() + " ms", sent(other) - otherBefore >= 2);
        assertTrue(ip.run("fabric:stats"), ip.run("fabric:stats").contains("drop_route_port_inactive"));
        ip.run("fabric:up sw1 " + used);
    }
}
