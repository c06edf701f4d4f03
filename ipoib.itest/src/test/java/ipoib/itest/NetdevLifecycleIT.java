package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * ipoib:netdev as a user drives it on the default appliance: add into a namespace (created),
 * list, del (device and namespace gone), refusals of bad arguments, restarts of the interface
 * and of the bundle under a running server; what a kill -9 leaves, its adoption by the next
 * appliance (one of forty hosts, each reaching h1), the cleanup command and that appliance's exit;
 * and the clear refusal without CAP_NET_ADMIN. The last two need appliances of their own (killed,
 * many hosts, or started without the capability); the class starts those it can at once.
 */
public class NetdevLifecycleIT {
    private static final long TIMEOUT = 60;
    /** The web console on any free port, so that appliances running at once do not collide. */
    private static final String ANY_PORT = "org.osgi.service.http.port=0";
    private static ApplianceProcess appliance;
    /** Started without CAP_NET_ADMIN with the class's appliance, so that the two starts overlap; its test ends it. */
    private static ApplianceProcess unprivileged;
    /** An appliance of one host, started with the class's appliance and killed by its test. */
    private static ApplianceProcess victim;
    /** The hosts of the appliance that adopts the victim's namespace ({@code ./ipoib --hosts 40}: h1..h40). */
    private static final int KILL_TEST_HOSTS = 40;

    @BeforeClass
    public static void start() throws Exception {
        NetdevIT.requireTools();
        for (int k = 1; k <= KILL_TEST_HOSTS; k++) {
            assertFalse("namespace h" + k + " exists already (ip netns del h" + k + ")", namespace("h" + k));
        }
        assertFalse("namespace ndt6 exists already (ip netns del ndt6)", namespace("ndt6"));
        // Three starts at once: a start is mostly CPU of one thread.
        victim = ApplianceProcess.shortLived("ipoib.defaults=false", "ipoib.hosts=1", ANY_PORT);
        appliance = ApplianceProcess.shortLived(ANY_PORT);
        unprivileged = ApplianceProcess.shortLived(List.of("setpriv", "--inh-caps=-net_admin", "--bounding-set=-net_admin"),
                ANY_PORT, "ipoib.hosts=2");
        appliance.command("ipoib:await all 30", TIMEOUT);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (victim != null) {
            victim.kill();
        }
        if (unprivileged != null) {
            unprivileged.close();
        }
        if (appliance != null) {
            assertEquals(0, appliance.exit(TIMEOUT));
        }
    }

    /** {@code ip -n NETNS link show dev DEVICE}: its flags (NO-CARRIER, LOWER_UP). */
    private static String link(String netns, String device) {
        try {
            return Sh.run(10, "ip", "-n", netns, "link", "show", "dev", device).ok("ip link").output();
        } catch (Exception e) {
            throw new IllegalStateException(e);
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
        String ping = appliance.command("ipoib:ping -c 2 -i 0.2 10.0.0.1", TIMEOUT);
        assertTrue(ping, ping.contains("2 packets transmitted, 2 received"));

        // The device's carrier follows the interface, as ib_ipoib's: off while the port is down.
        assertTrue(link("ndt1", "ib0_1_ffff"), link("ndt1", "ib0_1_ffff").contains("LOWER_UP"));
        appliance.command("fabric:down loop0/1", TIMEOUT);
        Await.until("NO-CARRIER on ib0_1_ffff in ndt1", java.time.Duration.ofSeconds(TIMEOUT),
                () -> link("ndt1", "ib0_1_ffff"), l -> l.contains("NO-CARRIER"));
        appliance.command("fabric:up loop0/1", TIMEOUT);
        appliance.command("ipoib:netdev await 30", TIMEOUT);
        String carrier = link("ndt1", "ib0_1_ffff");
        assertTrue(carrier, carrier.contains("LOWER_UP") && !carrier.contains("NO-CARRIER"));

        String twice = appliance.command("ipoib:netdev add ib0_1_ffff", TIMEOUT);
        assertTrue(twice, twice.contains("ib0_1_ffff is already bridged") && twice.contains("usage: ipoib:netdev"));

        String deleted = appliance.command("ipoib:netdev del ib0_1_ffff", TIMEOUT);
        assertTrue(deleted, deleted.contains("ib0_1_ffff: device removed"));
        assertFalse("namespace removed with its device", namespace("ndt1"));
        assertFalse("address left the stack's table",
                appliance.command("ipoib:addr list ib0_1_ffff", TIMEOUT).contains("10.9.0.1"));
        assertTrue(appliance.command("ipoib:netdev", TIMEOUT).contains("no bridged interfaces"));
    }

    /**
     * A restart of the interface (a configuration change of the link) or of the netdev bundle
     * keeps the namespace, so a server running in it goes on serving, and keeps the device's
     * addresses and routes the user added there, as a Linux netdev does when its link flaps.
     */
    @Test
    public void restartingTheLinkOrTheBundleKeepsTheNamespaceItsProgramsAddressesAndRoutes() throws Exception {
        assertFalse("namespace ndt3 exists already (ip netns del ndt3)", namespace("ndt3"));
        assertFalse("namespace ndt4 exists already (ip netns del ndt4)", namespace("ndt4"));
        String added = appliance.command("ipoib:netdev add ib1_1_ffff netns ndt3 offload off 10.9.1.2/24", TIMEOUT);
        assertTrue(added, added.contains("ib1_1_ffff: device ib1_1_ffff  netns ndt3") && added.contains("offload off"));
        appliance.command("ipoib:netdev add ib0_1_ffff netns ndt4 10.9.1.1/24", TIMEOUT);
        File log = File.createTempFile("netdev-http", ".log");
        Process server = Sh.start(log, Sh.in("ndt3", "python3", "-m", "http.server", "8000"));
        File pingLog = File.createTempFile("netdev-ping", ".log");
        Process ping = Sh.start(pingLog, Sh.in("ndt4", "ping", "-i", "0.2", "10.9.1.2"));
        Matcher id = Pattern.compile("(?m)^\\s*(\\d+)\\|.*ipoib\\.netdev")
                .matcher(appliance.command("lb -s", TIMEOUT));
        assertTrue("ipoib.netdev in lb -s", id.find());
        try {
            Sh.awaitListening("ndt3", 8000, TIMEOUT);
            Sh.run(10, "ip", "-n", "ndt3", "addr", "add", "10.9.7.2/24", "dev", "ib1_1_ffff").ok("ip addr add");
            Sh.run(10, "ip", "-n", "ndt3", "route", "add", "10.77.0.0/16", "via", "10.9.1.1").ok("ip route add");
            fetch();

            // A change of the link's configuration restarts the interface (a new queue pair, a new QPN).
            String qpn = qpn("ib1_1_ffff");
            appliance.command("ipoib:config ipoib.link~default-loop1 receiveQueueDepth 512", TIMEOUT);
            String[] now = {qpn};
            NetdevHosts.await("the interface restarts", () -> !qpn.equals(now[0] = qpn("ib1_1_ffff")),
                    () -> "(QPN " + qpn + " before, " + now[0] + " now)");
            assertKeptWithItsServer("a restart of the interface", server, log);

            appliance.command("stop " + id.group(1), TIMEOUT);
            assertTrue("the namespace stays while the bundle is stopped", namespace("ndt3"));
            appliance.command("start " + id.group(1), TIMEOUT);
            assertKeptWithItsServer("a restart of the netdev bundle", server, log);
            // The ping started before both restarts is answered again after them.
            long replies = replies(pingLog);
            Await.until("replies to the ping that ran across the restarts", java.time.Duration.ofSeconds(TIMEOUT),
                    () -> ping.isAlive() && replies(pingLog) > replies + 2, () -> read(pingLog));
            String back = appliance.awaitCommand("ipoib:netdev", "ib1_1_ffff: device ib1_1_ffff  netns ndt3", TIMEOUT);
            assertTrue(back, back.contains("offload off"));
        } finally {
            server.destroy();
            server.waitFor();
            log.delete();
            ping.destroy();
            ping.waitFor();
            pingLog.delete();
            appliance.command("start " + id.group(1), TIMEOUT);
            appliance.command("ipoib:config ipoib.link~default-loop1 receiveQueueDepth 256", TIMEOUT);
            appliance.command("ipoib:netdev del ib1_1_ffff", TIMEOUT);
            appliance.command("ipoib:netdev del ib0_1_ffff", TIMEOUT);
        }
        // Deleting the configuration removes the device and the namespace the appliance made.
        assertFalse(namespace("ndt3"));
        assertFalse(namespace("ndt4"));
    }

    /**
     * A bad value for a bridged device's or an interface's configuration is refused by
     * {@code ipoib:config} and changes nothing: the device, its namespace and its addresses stay.
     */
    @Test
    public void aRefusedDeviceNameOrAddressLeavesTheDeviceItsNamespaceAndItsAddress() throws Exception {
        assertFalse("namespace ndt5 exists already (ip netns del ndt5)", namespace("ndt5"));
        appliance.command("ipoib:netdev add ib0_1_ffff netns ndt5 10.9.5.1/24", TIMEOUT);
        try {
            appliance.awaitCommand("ipoib:netdev", "10.0.0.1/24", TIMEOUT);
            String netdev = onlyPid("ipoib.netdev");
            String address = addressPid("10.0.0.1/24");
            String before = Sh.run(10, "ip", "-n", "ndt5", "addr", "show", "dev", "ib0_1_ffff").ok("ip addr").output();
            List<String[]> bad = List.of(
                    new String[] {netdev, "device", "waytoolongdevicename0", "1..15 characters"},
                    new String[] {netdev, "device", "bad/name", "allowed"},
                    new String[] {netdev, "netns", "bad ns!", "allowed"},
                    new String[] {netdev, "addresses", "10.9.5.300/24", "allowed"},
                    new String[] {netdev, "link", "ib9_1_ffff", "allowed"},
                    new String[] {netdev, "offload", "maybe", "allowed true or false"},
                    new String[] {netdev, "nosuch", "1", "allowed"},
                    new String[] {address, "address", "10.0.0.300/24", "allowed"});
            int accepted = 0;
            for (String[] b : bad) {
                String out = appliance.command("ipoib:config " + b[0] + " " + b[1] + " '" + b[2] + "'", TIMEOUT);
                System.out.println("netdev sweep: " + b[1] + " " + b[2] + " -> " + out.strip());
                if (!out.contains("nothing was changed")) {
                    accepted++;
                }
                assertTrue(b[1] + " " + b[2] + ": " + out, out.contains("nothing was changed") && out.contains("'" + b[1] + "'")
                        && out.contains(b[2]) && out.contains(b[3]) && !out.contains("\tat "));
            }
            System.out.println("netdev sweep: " + bad.size() + " bad values, " + accepted + " accepted");
            // Nothing changed: the device in its namespace with its addresses, the interface's address in the stack.
            String list = appliance.command("ipoib:netdev", TIMEOUT);
            assertTrue(list, list.contains("ib0_1_ffff: device ib0_1_ffff  netns ndt5"));
            assertTrue(namespace("ndt5"));
            String after = Sh.run(10, "ip", "-n", "ndt5", "addr", "show", "dev", "ib0_1_ffff").ok("ip addr").output();
            assertTrue(after, after.contains("inet 10.9.5.1/24") && after.contains("inet 10.0.0.1/24"));
            assertEquals(before.replaceAll("valid_lft.*", ""), after.replaceAll("valid_lft.*", ""));
            assertTrue(appliance.command("ipoib:addr list ib0_1_ffff", TIMEOUT).contains("10.0.0.1/24"));
            String ping = appliance.command("ipoib:ping -c 2 -i 0.2 10.0.0.1", TIMEOUT);
            assertTrue("the kernel in ndt5 still answers: " + ping, ping.contains("2 packets transmitted, 2 received"));
            assertFalse(appliance.output(), appliance.output().contains("has thrown an exception"));
            assertFalse(appliance.output(), appliance.output().contains("Error during instantiation"));
        } finally {
            appliance.command("ipoib:netdev del ib0_1_ffff", TIMEOUT);
        }
        assertFalse(namespace("ndt5"));
    }

    /** The one configuration of a factory PID, as ipoib:config lists it. */
    private static String onlyPid(String factoryPid) throws Exception {
        String listing = appliance.command("ipoib:config " + factoryPid, TIMEOUT);
        Matcher m = Pattern.compile("(?m)^\\s+(" + Pattern.quote(factoryPid) + "~\\S+)$").matcher(listing);
        assertTrue(listing, m.find());
        String pid = m.group(1);
        assertFalse("one configuration: " + listing, m.find());
        return pid;
    }

    /** The ipoib.address configuration holding {@code address}. */
    private static String addressPid(String address) throws Exception {
        String listing = appliance.command("ipoib:config ipoib.address", TIMEOUT);
        Matcher m = Pattern.compile("(?m)^\\s+(ipoib\\.address~\\S+)$").matcher(listing);
        while (m.find()) {
            if (appliance.command("ipoib:config " + m.group(1), TIMEOUT).contains(address)) {
                return m.group(1);
            }
        }
        throw new AssertionError("no ipoib.address configuration holds " + address + ": " + listing);
    }

    private static long replies(File pingLog) {
        return read(pingLog).lines().filter(l -> l.contains("bytes from 10.9.1.2")).count();
    }

    private static String read(File file) {
        try {
            return Files.readString(file.toPath());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The QPN of an interface, from ipoib:links ("-" while it has none). */
    private static String qpn(String link) throws Exception {
        Matcher m = Pattern.compile("(?s)" + link + ": \\S+.*?qpn (0x[0-9a-f]+)").matcher(appliance.command("ipoib:links", TIMEOUT));
        return m.find() ? m.group(1) : "-";
    }

    /** curl from ndt4 gets the directory listing of the server in ndt3 (polled: the link may be coming back). */
    private static void fetch() {
        String[] last = {""};
        NetdevHosts.await("curl http://10.9.1.2:8000/ from ndt4", () -> {
            Sh.Result r = Sh.run(TIMEOUT, Sh.in("ndt4", "curl", "-sS", "-f", "-m", "5", "http://10.9.1.2:8000/"));
            last[0] = r.output();
            return r.status() == 0 && r.output().contains("Directory listing");
        }, () -> last[0]);
    }

    private static void assertKeptWithItsServer(String after, Process server, File log) throws Exception {
        appliance.awaitCommand("ipoib:netdev await 30", "ib1_1_ffff: device ib1_1_ffff  netns ndt3", TIMEOUT);
        assertTrue("the server in ndt3 runs on after " + after + ": " + Files.readString(log.toPath()), server.isAlive());
        // The server's namespace is still the one named ndt3, not one deleted and made again.
        String identify = Sh.run(10, "ip", "netns", "identify", Long.toString(server.pid())).ok("ip netns identify").output();
        assertTrue("the server's namespace is ndt3 after " + after + ": '" + identify.trim() + "'",
                identify.lines().anyMatch("ndt3"::equals));
        String addresses = Sh.run(10, "ip", "-n", "ndt3", "addr", "show", "dev", "ib1_1_ffff").ok("ip addr").output();
        assertTrue("the user's address stays after " + after + ":\n" + addresses, addresses.contains("inet 10.9.7.2/24"));
        String routes = Sh.run(10, "ip", "-n", "ndt3", "route", "show").ok("ip route").output();
        assertTrue("the user's route stays after " + after + ":\n" + routes,
                routes.contains("10.77.0.0/16 via 10.9.1.1 dev ib1_1_ffff"));
        fetch();
    }

    @Test
    public void badArgumentsAreRefusedWithUsage() throws Exception {
        String noSuch = appliance.command("ipoib:netdev add nosuch0", TIMEOUT);
        assertTrue(noSuch, noSuch.contains("no interface 'nosuch0'") && noSuch.contains("usage: ipoib:netdev"));
        String badAddress = appliance.command("ipoib:netdev add ib1_1_ffff 10.0.0.300/24", TIMEOUT);
        assertTrue(badAddress, badAddress.contains("'10.0.0.300/24' is not an IP literal")
                && badAddress.contains("usage: ipoib:netdev"));
        String noPrefix = appliance.command("ipoib:netdev add ib1_1_ffff 10.0.0.3", TIMEOUT);
        assertTrue(noPrefix, noPrefix.contains("'10.0.0.3' has no prefix length"));
        String badNs = appliance.command("ipoib:netdev add ib1_1_ffff netns a/b", TIMEOUT);
        assertTrue(badNs, badNs.contains("property 'netns' value 'a/b'"));
        String badDev = appliance.command("ipoib:netdev add ib1_1_ffff dev waytoolongdevicename", TIMEOUT);
        assertTrue(badDev, badDev.contains("property 'device' value 'waytoolongdevicename': allowed 1..15 characters")
                && badDev.contains("usage: ipoib:netdev"));
        String spaced = appliance.command("ipoib:netdev add ib1_1_ffff dev bad name!", TIMEOUT);
        assertTrue(spaced, spaced.contains("'name!' is not netns, dev, offload or an <address>/<prefix>; "
                + "a device name is one word of A-Z a-z 0-9 _ . - (dev took 'bad')") && spaced.contains("usage: ipoib:netdev"));
        String quoted = appliance.command("ipoib:netdev add ib1_1_ffff dev 'bad name!'", TIMEOUT);
        assertTrue(quoted, quoted.contains("property 'device' value 'bad name!': allowed 1..15 characters of A-Z a-z 0-9 _ . -")
                && quoted.contains("usage: ipoib:netdev"));
        String badOffload = appliance.command("ipoib:netdev add ib1_1_ffff offload maybe", TIMEOUT);
        assertTrue(badOffload, badOffload.contains("offload 'maybe': allowed on or off")
                && badOffload.contains("usage: ipoib:netdev"));
        String unknown = appliance.command("ipoib:netdev frobnicate", TIMEOUT);
        assertTrue(unknown, unknown.contains("unknown subcommand 'frobnicate'"));
        assertTrue(appliance.command("ipoib:netdev", TIMEOUT).contains("no bridged interfaces"));
    }

    /**
     * kill -9 leaves the namespaces; the next appliance that puts a host into one adopts it (it is
     * recorded as that appliance's), so cleanup keeps it while that one runs and removes only what
     * the dead one left, and that one's exit removes it with its own. The next appliance has forty
     * hosts ({@code ./ipoib --hosts 40}), more than one hex digit of CA index: host K bridges the
     * interface of HCA K-1, whose default name has the CA index in hex (ib10_1_ffff is HCA 16,
     * host 17); every host comes up as {@code ib0} in its namespace, and all of h2..h40 reach h1 at
     * once, each resolving it by ARP, as a user's script on many hosts would.
     */
    @Test
    public void killLeavesNamespacesFortyHostsAdoptOneAndCleanupRemovesOnlyWhatNoneUses() throws Exception {
        int hosts = KILL_TEST_HOSTS;
        ApplianceProcess adopter = null;
        try {
            victim.awaitCommand("ipoib:netdev await 30", "ib0_1_ffff: device ib0  netns h1  mtu 2044", TIMEOUT);
            // A second interface of the victim, bridged into a namespace no later appliance puts a host into.
            // (One interface per port and P_Key: the second is on a P_Key of its own.)
            victim.command("fabric:pkeys loop0/1 0xffff 0x8001", TIMEOUT);
            String created = victim.command("ipoib:create loop0 1 0x8001 vic", TIMEOUT);
            assertTrue(created, created.contains("created vic"));
            victim.awaitCommand("ipoib:await vic 30", "vic UP", TIMEOUT);
            String added = victim.command("ipoib:netdev add vic netns ndt6", TIMEOUT);
            assertTrue(added, added.contains("vic: device vic  netns ndt6"));
            victim.kill();
            // The TUN devices went with the process; the namespaces stay.
            assertTrue("kill -9 leaves the namespace", namespace("h1"));
            assertTrue("kill -9 leaves the namespace", namespace("ndt6"));
            assertTrue(Sh.run(10, "ip", "-n", "h1", "link", "show", "ib0").status() != 0);

            adopter = ApplianceProcess.shortLived("ipoib.defaults=false", "ipoib.hosts=" + hosts, ANY_PORT);
            String last = String.format("ib%x_1_ffff: device ib0  netns h%d  mtu 2044  link UP", hosts - 1, hosts);
            String list = adopter.awaitCommand("ipoib:netdev await 120", last, 2 * TIMEOUT);
            for (int k = 1; k <= hosts; k++) {
                String device = String.format("ib%x_1_ffff: device ib0  netns h%d  mtu 2044  link UP", k - 1, k);
                assertTrue(device + "\n" + list, list.contains(device));
            }
            // All at once: each of h2..h40 resolves h1 by ARP, and hosts across the hex digits reach each other.
            Map<String, Process> pings = new LinkedHashMap<>();
            for (int k = 2; k <= hosts; k++) {
                pings.put("h" + k + " -> 10.0.0.1", new ProcessBuilder(Sh.in("h" + k, "ping", "-c", "1", "-W", "10",
                        "10.0.0.1")).redirectErrorStream(true).start());
            }
            for (String[] pair : new String[][] {{"h20", "10.0.0.11"}, {"h11", "10.0.0.17"}, {"h17", "10.0.0.20"},
                {"h1", "10.0.0.2"}, {"h40", "10.0.0.39"}}) {
                pings.put(pair[0] + " -> " + pair[1], new ProcessBuilder(Sh.in(pair[0], "ping", "-c", "2", "-i", "0.2",
                        "-W", "5", pair[1])).redirectErrorStream(true).start());
            }
            List<String> unreached = new ArrayList<>();
            for (Map.Entry<String, Process> p : pings.entrySet()) {
                if (!p.getValue().waitFor(2 * TIMEOUT, TimeUnit.SECONDS)) {
                    p.getValue().destroyForcibly();
                }
                String out = new String(p.getValue().getInputStream().readAllBytes());
                if (!out.contains(" packets transmitted, ") || !out.contains(" received, 0% packet loss")) {
                    unreached.add(p.getKey() + ": " + out.strip());
                }
            }
            assertEquals("pings not answered: " + unreached, List.of(), unreached);

            String kept = appliance.command("ipoib:netdev cleanup", TIMEOUT);
            assertTrue(kept, kept.contains("h1: kept (appliance " + adopter.pid() + " is running)"));
            assertTrue(kept, kept.contains("ndt6: removed (left by appliance " + victim.pid() + ")"));
            assertFalse("the victim's record of h1 moved to the adopter:\n" + kept,
                    kept.contains("h1: removed") || kept.contains("h1: already gone"));
            assertTrue("cleanup keeps what a running appliance uses", namespace("h1"));
            assertFalse("cleanup removes what no running appliance uses", namespace("ndt6"));
            Sh.run(10, "ip", "-n", "h1", "link", "show", "ib0").ok("h1's device after cleanup");
            // Another appliance may not put a device into it while its owner runs.
            String refused = appliance.command("ipoib:netdev add ib0_1_ffff netns h1", TIMEOUT);
            assertTrue(refused, refused.contains("network namespace h1 belongs to the appliance running as process "
                    + adopter.pid()));
            assertTrue(appliance.command("ipoib:netdev", TIMEOUT).contains("no bridged interfaces"));
            Sh.run(10, "ip", "-n", "h1", "link", "show", "ib0").ok("h1's device after the refusal");

            // The adopter's exit removes every namespace it owns: its 39 and the adopted h1.
            int status = adopter.exit(TIMEOUT);
            adopter = null;
            assertEquals(0, status);
            for (int k = 1; k <= hosts; k++) {
                assertFalse("h" + k + " removed at exit", namespace("h" + k));
            }
            String after = appliance.command("ipoib:netdev cleanup", TIMEOUT);
            assertFalse("no record of h1 left behind:\n" + after, after.contains("h1:"));
        } finally {
            victim.kill();
            if (adopter != null) {
                adopter.kill();
            }
            // What a failure left behind; the next run would find it in its way.
            appliance.command("ipoib:netdev cleanup", TIMEOUT);
        }
        for (int k = 1; k <= hosts; k++) {
            assertFalse("h" + k + " removed", namespace("h" + k));
        }
        assertFalse(namespace("ndt6"));
    }

    @Test
    public void withoutCapNetAdminTheCommandRefusesAndNothingElseBreaks() throws Exception {
        try {
            String links = unprivileged.command("ipoib:await all 30", TIMEOUT);
            assertTrue(links, links.contains("ib0_1_ffff UP"));
            String refused = unprivileged.command("ipoib:netdev add ib0_1_ffff netns ndt2", TIMEOUT);
            assertTrue(refused, refused.contains("cannot create network devices: the process runs as root without CAP_NET_ADMIN"));
            // --hosts 2 could not make its hosts: the wait for them fails at once, saying why.
            String hosts = unprivileged.command("ipoib:netdev await 30", TIMEOUT);
            assertTrue(hosts, hosts.contains("--hosts 2: cannot create the hosts' network devices: the process runs as root "
                    + "without CAP_NET_ADMIN"));
            assertFalse(namespace("ndt2"));
            String ping = unprivileged.command("ipoib:ping -c 1 10.0.0.2", TIMEOUT);
            assertTrue(ping, ping.contains("1 packets transmitted, 1 received"));
        } finally {
            assertEquals(0, unprivileged.exit(TIMEOUT));
        }
    }
}
