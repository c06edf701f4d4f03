package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
    /**
     * The broadcast partition, and partition 0x0042 that only OpenSM knows: hca0 (port GUID
     * 0x100001, loop0) a full member, hca1 and hca2 (loop1, loop2) limited members; ibsim's GUIDs
     * for the net file, which the loopback fabric gives its HCAs too.
     */
    static final String PARTITIONS = "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, defmember=full : ALL=full ;\n"
            + "Isolated=0x0042, ipoib, mtu=4, rate=3, sl=0, defmember=limited : 0x0000000000100001=full, "
            + "0x0000000000100003, 0x0000000000100005 ;\n";
    /** The master's priority (OpenSM's -p); a standby's is lower. */
    private static final String MASTER_PRIORITY = "2";
    /**
     * A standby polls the master every 250 ms and takes over once three polls in a row went unanswered
     * (osm_sm_state_mgr.c, osm_sm_state_mgr_polling_callback: about a second after the master dies;
     * with OpenSM's defaults, 10 s and 4, the test would wait most of a minute). Each poll is a SubnGet(SMInfo)
     * with OpenSM's transaction timeout, so a busy master is still allowed two late answers in a row.
     */
    private static final String FAST_POLLING = "sminfo_polling_timeout 250\npolling_retry_number 2\n";
    private static String socket;
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
            anInterfaceIsDownSayingItsPortHasNoLidUntilOpenSmSweeps();
        }
        if (openSm == null) {
            socket = System.getProperty(SOCKET);
            // Pax Exam's native container set these as the JVM's: the next test classes run without them
            // (the fabric has read them; JUnit runs each method of this class with its own @AfterClass).
            for (String p : new String[] {"ipoib.opensm", "ipoib.topology", SOCKET}) {
                System.clearProperty(p);
            }
            try {
                openSm = OpenSmProcess.start(socket, PARTITIONS, "", "", "SUBNET UP", "-p", MASTER_PRIORITY);
                OpenSmProcess master = openSm;
                Runtime.getRuntime().addShutdownHook(new Thread(master::close, "opensm-it-stop"));
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

    /** Before OpenSM attaches: an interface on loop3 (hca3), which no test here uses, then removed. */
    private void anInterfaceIsDownSayingItsPortHasNoLidUntilOpenSmSweeps() throws Exception {
        ip.createLink("unswept", "loop3", "0xffff");
        String reason = "port loop3/1 is INIT, no LID yet: the subnet manager has not swept it";
        Await.until("unswept DOWN with its reason", Duration.ofSeconds(20), () -> ip.link("unswept") != null
                && reason.equals(ip.link("unswept").stateReason()),
                () -> ip.link("unswept") == null ? "(no such link)" : ip.link("unswept").stateReason());
        String links = ip.run("ipoib:links unswept");
        assertTrue(links, links.startsWith("unswept: DOWN (" + reason + ")"));
        configurationAdmin.getFactoryConfiguration("ipoib.link", "unswept", "?").delete();
        Await.until("unswept removed", Duration.ofSeconds(20), () -> ip.link("unswept") == null);
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
        // Nor anything else: a new fabric would leave OpenSM managing none.
        String rebuilt = context.getService(rules.iterator().next()).refusal("ipoib.verbs.loopback",
                java.util.Map.of("sm", "external", "simulator", "local", "hcas", 3));
        assertTrue(rebuilt, rebuilt.startsWith("the loopback's configuration cannot change while an external SM manages "
                + "the fabric"));
        assertTrue(ip.run("fabric:simulator").startsWith("sm=external"));
    }

    /** The base LID ibstat shows at a node of the topology. */
    private static String baseLid(OpenSmProcess sm, String node) throws Exception {
        String ibstat = sm.toolAt(node, "ibstat");
        java.util.regex.Matcher lid = java.util.regex.Pattern.compile("Base lid: (\\d+)").matcher(ibstat);
        assertTrue("ibstat at " + node + " shows its LID:\n" + ibstat, lid.find());
        return lid.group(1);
    }

    /** Brings up an interface with an address, unless it is there already. */
    private void upWithAddress(String name, String device, String pkey, String address) throws Exception {
        if (ip.link(name) == null) {
            ip.createLink(name, device, pkey);
        }
        ip.awaitUp(name);
        if (ip.findAddress(name, address) == null) {
            ip.address(name, address, 24);
        }
    }

    @Test
    public void aPartitionOnlyInOpenSmsPartitionsConfIsolatesItsLimitedMembers() throws Exception {
        // The P_Key tables OpenSM set: hca0 a full member of 0x0042, hca1 and hca2 limited ones.
        assertTrue(openSm.tool("smpquery", "pkeys", baseLid(openSm, "hca0"), "1").contains("0x8042"));
        for (String limited : new String[] {"hca1", "hca2"}) {
            String pkeys = openSm.tool("smpquery", "pkeys", baseLid(openSm, limited), "1");
            assertTrue(limited + ": " + pkeys, pkeys.contains("0x0042") && !pkeys.contains("0x8042"));
        }
        upWithAddress("full42", "loop0", "0x8042", "10.42.0.1");
        upWithAddress("lim42a", "loop1", "0x8042", "10.42.0.2");
        upWithAddress("lim42b", "loop2", "0x8042", "10.42.0.3");

        // The full member reaches both limited members, through both switches.
        ip.pingUntilReply("full42", "10.42.0.2", Duration.ofSeconds(20));
        ip.pingUntilReply("full42", "10.42.0.3", Duration.ofSeconds(20));
        // Two limited members do not reach each other (IBA 10.9.3: one end must be a full member):
        // not even the ARP request, a broadcast the other receives only from a full member, so each
        // resolution ends after its requests (3, 100 ms apart, as configured above) with no such
        // node, and no echo request can go out; each limited member still reaches the full member.
        // The two resolutions run at once, and their end is awaited, not a ping's deadline.
        ipoib.api.resolve.NeighbourResolver arp = ip.arp();
        List<CompletableFuture<?>> unanswered = List.of(resolution(arp, "lim42a", "10.42.0.3"),
                resolution(arp, "lim42b", "10.42.0.2"));
        GogoShell.Result ping = ip.shell("ipoib:ping -I lim42b -c 2 -i 0.2 -W 1 10.42.0.1");
        assertTrue(ping.all(), ping.all().contains(" 0% packet loss"));
        for (CompletableFuture<?> resolution : unanswered) {
            try {
                throw new AssertionError("a limited member resolved another: "
                        + resolution.get(10, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                assertTrue(String.valueOf(e.getCause()), e.getCause() instanceof ipoib.api.resolve.NoSuchNodeException);
            }
        }
    }

    /**
     * The ARP resolution of {@code address} on {@code link}, pending (or, when an earlier one failed
     * within the hold time, failed already).
     */
    private static CompletableFuture<?> resolution(ipoib.api.resolve.NeighbourResolver arp, String link,
                                                   String address) throws Exception {
        ipoib.api.resolve.PathInfoAnswer answer = arp.pathInfo(link, java.net.InetAddress.getByName(address));
        if (answer instanceof ipoib.api.resolve.PathInfoAnswer.Pending pending) {
            return pending.path().toCompletableFuture();
        }
        assertTrue(link + " to " + address + ": " + answer, answer instanceof ipoib.api.resolve.PathInfoAnswer.NoSuchNode);
        return CompletableFuture.failedFuture(new ipoib.api.resolve.NoSuchNodeException(link + " " + address));
    }

    @Test
    public void aStandbyOpenSmTakesOverWhenTheMasterIsKilledAndTheInterfacesStayUsable() throws Exception {
        // The standby attaches at hca3 (loop3, no interface of this test) with a lower priority.
        OpenSmProcess standby = OpenSmProcess.start(socket, PARTITIONS, "hca3", FAST_POLLING,
                "Entering STANDBY state", "-p", "1");
        Runtime.getRuntime().addShutdownHook(new Thread(standby::close, "opensm-it-standby-stop"));
        String standbyLid = baseLid(standby, "hca3");
        String sminfo = standby.tool("sminfo", standbyLid);
        assertTrue(sminfo, sminfo.contains("priority 1 state 2 SMINFO_STANDBY"));
        assertTrue(openSm.tool("sminfo").contains("priority " + MASTER_PRIORITY + " state 3 SMINFO_MASTER"));

        OpenSmProcess master = openSm;
        master.kill();
        openSm = standby; // for the other tests of the class, whatever their order
        master.close();
        standby.awaitLog("Entering MASTER state");
        standby.awaitLog("SUBNET UP");
        sminfo = standby.tool("sminfo");
        assertTrue(sminfo, sminfo.contains("sminfo: sm lid " + standbyLid + " ")
                && sminfo.contains("priority 1 state 3 SMINFO_MASTER"));

        // Traffic on the interfaces that were up, and an interface that joins only now, under the new master.
        ip.pingUntilReply("a", "10.8.0.2", Duration.ofSeconds(20));
        upWithAddress("c", "loop2", "0xffff", "10.8.0.3");
        ip.pingUntilReply("c", "10.8.0.1", Duration.ofSeconds(20));
        ip.pingUntilReply("b", "10.8.0.3", Duration.ofSeconds(20));
        // The trusted member table (OpenSM's SM_Key 1) of the new master: a and b joined again, c joined.
        String members = standby.tool("saquery", "--smkey", "1", "-m");
        long broadcastMembers = members.lines().filter(l -> l.contains("MGID") && l.endsWith("ff12:401b:ffff::ffff:ffff"))
                .count();
        assertEquals(members, 3, broadcastMembers);
    }
}
