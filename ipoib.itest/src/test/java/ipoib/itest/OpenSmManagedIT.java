package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.time.Duration;
import javax.inject.Inject;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The loopback fabric with the two-switch example topology managed by Debian's OpenSM (sm=external,
 * as {@code ./ipoib --opensm} starts it): the interfaces come up on the broadcast group OpenSM
 * created from its partitions.conf, their SA traffic goes to OpenSM through the management plane,
 * and they ping each other through both switches over the LIDs and forwarding tables OpenSM
 * programmed. One OpenSM for the class.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class OpenSmManagedIT {
    private static final String SOCKET = "ipoib.itest.opensm.socket";
    static final String PARTITIONS = "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, defmember=full : ALL=full ;\n";
    private static OpenSmProcess openSm;

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;

    IpFixture ip;

    @Configuration
    public Option[] config() {
        String socket = "ipoib-it-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        return options(OsgiTestSupport.runtime("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.arp",
                "ipoib.host"), systemProperty("ipoib.defaults").value("false"),
                systemProperty("ipoib.opensm").value(socket), systemProperty(SOCKET).value(socket),
                systemProperty("ipoib.topology").value(
                        OpenSmProcess.repository().resolve("examples/two-switches.net").toString()));
    }

    @Before
    public void managedByOpenSm() throws Exception {
        ip = new IpFixture(context, configurationAdmin);
        if (openSm == null) {
            String socket = System.getProperty(SOCKET);
            // Pax Exam's native container set these as the JVM's: the next test classes run without them
            // (the fabric has read them; JUnit runs each method of this class with its own @AfterClass).
            for (String p : new String[] {"ipoib.opensm", "ipoib.topology", SOCKET}) {
                System.clearProperty(p);
            }
            try {
                openSm = OpenSmProcess.start(socket, PARTITIONS);
                Runtime.getRuntime().addShutdownHook(new Thread(openSm::close, "opensm-it-stop"));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\nloopback provider: " + loopbackComponent(), e);
            }
        }
        if (ip.link("a") == null) {
            ip.configure("ipoib.arp", "retransmitMillis", 100, "requests", 3, "failedHoldMillis", 2000L);
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        if (ip.findAddress("a", "10.8.0.1") == null) {
            ip.address("a", "10.8.0.1", 24);
            ip.address("b", "10.8.0.2", 24);
        }
    }

    private static long xmitPackets(String perfquery) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^PortXmitPkts:\\.+(\\d+)$").matcher(perfquery);
        assertTrue(perfquery, m.find());
        return Long.parseLong(m.group(1));
    }

    /** The loopback provider's component state and failure, from Declarative Services. */
    private String loopbackComponent() {
        var ref = context.getServiceReference(org.osgi.service.component.runtime.ServiceComponentRuntime.class);
        var scr = context.getService(ref);
        StringBuilder out = new StringBuilder();
        for (var d : scr.getComponentDescriptionDTOs()) {
            if (d.name.endsWith("LoopbackProvider")) {
                for (var c : scr.getComponentConfigurationDTOs(d)) {
                    out.append("state ").append(c.state).append(' ').append(c.failure);
                }
            }
        }
        return out.toString();
    }

    @Test
    public void theInterfacesComeUpOnOpenSmsBroadcastGroupAndPingAcrossBothSwitches() throws Exception {
        String simulator = ip.run("fabric:simulator");
        assertTrue(simulator, simulator.startsWith("sm=external"));
        assertTrue(simulator, simulator.contains(" SM"));
        // The broadcast group OpenSM created from partitions.conf: its first MLID (0xc000, osm_sa_mcmember_record.c).
        String links = ip.run("ipoib:links a");
        assertTrue(links, links.contains("UP"));
        String mgids = openSm.tool("saquery", "-g");
        assertTrue(mgids, mgids.contains("ff12:401b:ffff::ffff:ffff"));

        ip.pingUntilReply("a", "10.8.0.2", Duration.ofSeconds(20));
        // perfquery of loop0's port (hca0 in the net file), at the LID ibstat shows there.
        java.util.regex.Matcher lid = java.util.regex.Pattern.compile("Base lid: (\\d+)")
                .matcher(openSm.toolAt("hca0", "ibstat"));
        assertTrue("ibstat at hca0 shows its LID", lid.find());
        long before = xmitPackets(openSm.tool("perfquery", lid.group(1), "1"));
        GogoShell.Result ping = ip.shell("ipoib:ping -I a -c 3 -i 0.2 -W 1 10.8.0.2");
        assertNull(ping.all(), ping.error());
        assertTrue(ping.all(), ping.all().contains(" 0% packet loss"));
        String after = openSm.tool("perfquery", lid.group(1), "1");
        assertTrue("three echo requests more: " + after, xmitPackets(after) - before >= 3);
    }

    @Test
    public void theEmulatedSmsCommandsAreRefusedWhileOpenSmManagesTheSubnet() throws Exception {
        GogoShell.Result lid = ip.shell("fabric:lid loop0/1 77");
        assertTrue(lid.all(), lid.all().contains("sm=external"));
        // What ipoib:config asks before it stores anything.
        var rules = context.getServiceReferences(ipoib.api.config.ConfigurationRules.class,
                "(ipoib.config.pid=ipoib.verbs.loopback)");
        assertEquals(1, rules.size());
        String refused = context.getService(rules.iterator().next()).refusal("ipoib.verbs.loopback",
                java.util.Map.of("sm", "emulated"));
        assertEquals("loopback property 'sm' cannot change from 'external' to 'emulated' while the fabric runs: the "
                + "interfaces' LIDs, groups and paths belong to the SM in force; set it before start "
                + "(./ipoib --opensm starts with sm=external)", refused);
        assertTrue(ip.run("fabric:simulator").startsWith("sm=external"));
    }
}
