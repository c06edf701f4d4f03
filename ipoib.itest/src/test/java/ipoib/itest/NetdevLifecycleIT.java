package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * ipoib:netdev as a user drives it on the default appliance: add into a namespace (created),
 * list, del (device and namespace gone), refusals of bad arguments; what a kill -9 leaves and
 * the cleanup command; and the clear refusal without CAP_NET_ADMIN. The last two need an
 * appliance of their own (killed, or started without the capability).
 */
public class NetdevLifecycleIT {
    private static final long TIMEOUT = 60;
    private static ApplianceProcess appliance;

    @BeforeClass
    public static void start() throws Exception {
        NetdevIT.requireTools();
        appliance = new ApplianceProcess();
        appliance.command("ipoib:await all 30", TIMEOUT);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (appliance != null) {
            assertEquals(0, appliance.exit(TIMEOUT));
        }
    }

    private static boolean namespace(String name) {
        return Files.exists(Path.of("/run/netns", name));
    }

    @Test
    public void addIntoANamespaceListAndDelete() throws Exception {
        assertFalse("namespace ndt1 exists already (ip netns del ndt1)", namespace("ndt1"));
        String added = appliance.command("ipoib:netdev add ib0_1_ffff netns ndt1 10.9.0.1/24", TIMEOUT);
        assertTrue(added, added.contains("ib0_1_ffff: device ib0_1_ffff  netns ndt1") && added.contains("offload tso,csum"));
        assertTrue("namespace created", namespace("ndt1"));
        // The kernel has the given address and, mirrored, the interface's configured one (ipoib.address).
        appliance.awaitCommand("ipoib:netdev", "10.0.0.1/24", TIMEOUT);
        String kernel = Sh.run(10, "ip", "-n", "ndt1", "addr", "show", "dev", "ib0_1_ffff").ok("ip addr").output();
        assertTrue(kernel, kernel.contains("inet 10.9.0.1/24") && kernel.contains("inet 10.0.0.1/24"));
        assertTrue(kernel, kernel.contains("NOARP") && kernel.contains("mtu 2044"));
        // ARP answers for the kernel's address: the stack's table has it.
        appliance.awaitCommand("ipoib:addr list ib0_1_ffff", "10.9.0.1", TIMEOUT);
        // The Java host on the other interface reaches the kernel's address; the kernel answers.
        String ping = appliance.command("ipoib:ping -c 2 10.0.0.1", TIMEOUT);
        assertTrue(ping, ping.contains("2 packets transmitted, 2 received"));

        String twice = appliance.command("ipoib:netdev add ib0_1_ffff", TIMEOUT);
        assertTrue(twice, twice.contains("ib0_1_ffff is already bridged"));

        String deleted = appliance.command("ipoib:netdev del ib0_1_ffff", TIMEOUT);
        assertTrue(deleted, deleted.contains("ib0_1_ffff: device removed"));
        assertFalse("namespace removed with its device", namespace("ndt1"));
        assertFalse("address left the stack's table",
                appliance.command("ipoib:addr list ib0_1_ffff", TIMEOUT).contains("10.9.0.1"));
        assertTrue(appliance.command("ipoib:netdev", TIMEOUT).contains("no bridged interfaces"));
    }

    @Test
    public void stoppingTheBundleRemovesTheDeviceAndStartingItBringsTheConfigurationBack() throws Exception {
        assertFalse("namespace ndt3 exists already (ip netns del ndt3)", namespace("ndt3"));
        String added = appliance.command("ipoib:netdev add ib1_1_ffff netns ndt3 offload off 10.9.1.2/24", TIMEOUT);
        assertTrue(added, added.contains("ib1_1_ffff: device ib1_1_ffff  netns ndt3") && added.contains("offload off"));
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("(?m)^\\s*(\\d+)\\|.*ipoib\\.netdev")
                .matcher(appliance.command("lb -s", TIMEOUT));
        assertTrue("ipoib.netdev in lb -s", id.find());
        try {
            appliance.command("stop " + id.group(1), TIMEOUT);
            assertFalse("the namespace went with the bundle", namespace("ndt3"));
            appliance.command("start " + id.group(1), TIMEOUT);
            // The configuration stayed: the device comes back.
            String back = appliance.awaitCommand("ipoib:netdev", "ib1_1_ffff: device ib1_1_ffff  netns ndt3", TIMEOUT);
            assertTrue(back, back.contains("offload off"));
            assertTrue(namespace("ndt3"));
        } finally {
            appliance.command("start " + id.group(1), TIMEOUT);
            appliance.command("ipoib:netdev del ib1_1_ffff", TIMEOUT);
        }
        assertFalse(namespace("ndt3"));
    }

    @Test
    public void badArgumentsAreRefusedWithUsage() throws Exception {
        String noSuch = appliance.command("ipoib:netdev add nosuch0", TIMEOUT);
        assertTrue(noSuch, noSuch.contains("no interface 'nosuch0'") && noSuch.contains("usage: ipoib:netdev"));
        String badAddress = appliance.command("ipoib:netdev add ib1_1_ffff 10.0.0.300/24", TIMEOUT);
        assertTrue(badAddress, badAddress.contains("'10.0.0.300/24' is not an IP literal"));
        String noPrefix = appliance.command("ipoib:netdev add ib1_1_ffff 10.0.0.3", TIMEOUT);
        assertTrue(noPrefix, noPrefix.contains("'10.0.0.3' has no prefix length"));
        String badNs = appliance.command("ipoib:netdev add ib1_1_ffff netns a/b", TIMEOUT);
        assertTrue(badNs, badNs.contains("property netns 'a/b'"));
        String badDev = appliance.command("ipoib:netdev add ib1_1_ffff dev waytoolongdevicename", TIMEOUT);
        assertTrue(badDev, badDev.contains("property device 'waytoolongdevicename': 1..15 characters"));
        String badOffload = appliance.command("ipoib:netdev add ib1_1_ffff offload maybe", TIMEOUT);
        assertTrue(badOffload, badOffload.contains("offload 'maybe': allowed on or off")
                && badOffload.contains("usage: ipoib:netdev"));
        String unknown = appliance.command("ipoib:netdev frobnicate", TIMEOUT);
        assertTrue(unknown, unknown.contains("unknown subcommand 'frobnicate'"));
        assertTrue(appliance.command("ipoib:netdev", TIMEOUT).contains("no bridged interfaces"));
    }

    @Test
    public void killLeavesTheNamespaceAndCleanupRemovesIt() throws Exception {
        assertFalse("namespace h1 exists already (ip netns del h1)", namespace("h1"));
        ApplianceProcess victim = new ApplianceProcess("ipoib.defaults=false", "ipoib.hosts=1");
        try {
            victim.awaitCommand("ipoib:netdev await 30", "ib0_1_ffff: device ib0  netns h1  mtu 2044", TIMEOUT);
            assertTrue(namespace("h1"));
        } finally {
            victim.kill();
        }
        // The TUN device went with the process; the namespace stays.
        assertTrue("kill -9 leaves the namespace", namespace("h1"));
        assertTrue(Sh.run(10, "ip", "-n", "h1", "link", "show", "ib0").status() != 0);
        String cleaned = appliance.command("ipoib:netdev cleanup", TIMEOUT);
        assertTrue(cleaned, cleaned.contains("h1: removed (left by appliance " + victim.pid() + ")"));
        assertFalse(namespace("h1"));
    }

    @Test
    public void withoutCapNetAdminTheCommandRefusesAndNothingElseBreaks() throws Exception {
        ApplianceProcess unprivileged = new ApplianceProcess(
                List.of("setpriv", "--inh-caps=-net_admin", "--bounding-set=-net_admin"));
        try {
            String links = unprivileged.command("ipoib:await all 30", TIMEOUT);
            assertTrue(links, links.contains("ib0_1_ffff UP"));
            String refused = unprivileged.command("ipoib:netdev add ib0_1_ffff netns ndt2", TIMEOUT);
            assertTrue(refused, refused.contains("cannot create network devices: the process lacks CAP_NET_ADMIN"));
            assertFalse(namespace("ndt2"));
            String ping = unprivileged.command("ipoib:ping -c 1 10.0.0.2", TIMEOUT);
            assertTrue(ping, ping.contains("1 packets transmitted, 1 received"));
        } finally {
            assertEquals(0, unprivileged.exit(TIMEOUT));
        }
    }
}
