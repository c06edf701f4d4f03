package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Partitions seen by real ping and TCP: four hosts (./ipoib --hosts 4) on the default
 * partition, then
 * <ul>
 *   <li>pa and pb on P_Key 0x8001 (ports loop0/loop1 get the key, new interfaces on it, bridged
 *       into namespaces pa and pb with addresses in h1..h4's subnet): pa and pb reach each other,
 *       h1 (0xffff) cannot reach pb although its address is on-link;</li>
 *   <li>h3 and h4 become limited members of the default partition (P_Key table 0x7fff): a full
 *       member (h1) and a limited one reach each other, two limited members do not
 *       (IBA 10.9.3: a limited member accepts only packets of full members).</li>
 * </ul>
 */
public class NetdevPartitionIT {
    private static final long TIMEOUT = 60;
    private static ApplianceProcess appliance;

    @BeforeClass
    public static void start() throws Exception {
        NetdevIT.requireTools();
        for (String ns : new String[] {"h1", "h2", "h3", "h4", "pa", "pb"}) {
            assertFalse("network namespace " + ns + " exists already (ip netns del " + ns + ")",
                    Files.exists(Path.of("/run/netns", ns)));
        }
        appliance = new ApplianceProcess("ipoib.defaults=false", "ipoib.hosts=4");
        appliance.awaitCommand("ipoib:netdev await 60", "ib3_1_ffff: device ib0  netns h4  mtu 2044  link UP", TIMEOUT);
        appliance.command("fabric:pkeys loop0/1 0xffff 0x8001", TIMEOUT);
        appliance.command("fabric:pkeys loop1/1 0xffff 0x8001", TIMEOUT);
        appliance.command("ipoib:create loop0 1 0x8001 pa", TIMEOUT);
        appliance.command("ipoib:create loop1 1 0x8001 pb", TIMEOUT);
        appliance.awaitCommand("ipoib:await all 30", "pb UP", TIMEOUT);
        String pa = appliance.command("ipoib:netdev add pa netns pa dev ib0 10.0.0.11/24", TIMEOUT);
        assertTrue(pa, pa.contains("pa: device ib0  netns pa"));
        String pb = appliance.command("ipoib:netdev add pb netns pb dev ib0 10.0.0.12/24", TIMEOUT);
        assertTrue(pb, pb.contains("pb: device ib0  netns pb"));
        // h3 and h4: limited members; their interfaces come back UP with a new queue pair.
        appliance.command("fabric:pkeys loop2/1 0x7fff", TIMEOUT);
        appliance.command("fabric:pkeys loop3/1 0x7fff", TIMEOUT);
        appliance.awaitCommand("ipoib:netdev await 30", "ib3_1_ffff: device ib0  netns h4  mtu 2044  link UP", TIMEOUT);
        appliance.awaitCommand("ipoib:netdev await 30", "ib2_1_ffff: device ib0  netns h3  mtu 2044  link UP", TIMEOUT);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (appliance != null) {
            assertEquals(0, appliance.exit(TIMEOUT));
        }
    }

    private static int received(String from, String to) throws Exception {
        String out = Sh.run(TIMEOUT, Sh.in(from, "ping", "-c", "3", "-i", "0.3", "-W", "2", to)).output();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) received").matcher(out);
        assertTrue(out, m.find());
        return Integer.parseInt(m.group(1));
    }

    /** Whether a TCP connection from one host to a listener on another is made within 3 s. */
    private static boolean tcpConnects(String from, String toNs, String to, int port) throws Exception {
        Process listener = Sh.start(File.createTempFile("netdev-listen", ".log"),
                Sh.in(toNs, "nc", "-l", "-p", Integer.toString(port)));
        try {
            long deadline = System.nanoTime() + TIMEOUT * 1_000_000_000L;
            while (!Sh.run(10, Sh.in(toNs, "ss", "-Hltn", "sport = :" + port)).output().contains("LISTEN")) {
                assertTrue("nc listens in " + toNs, System.nanoTime() < deadline);
                Thread.sleep(50);
            }
            return Sh.run(TIMEOUT, Sh.in(from, "nc", "-z", "-w", "3", to, Integer.toString(port))).status() == 0;
        } finally {
            listener.destroy();
            listener.waitFor();
        }
    }

    @Test
    public void hostsOfOnePartitionReachEachOtherButNotAnotherPartition() throws Exception {
        assertEquals("pa -> pb, both on 0x8001", 3, received("pa", "10.0.0.12"));
        assertTrue(tcpConnects("pa", "pb", "10.0.0.12", 6001));
        assertEquals("h1 (0xffff) -> pb (0x8001)", 0, received("h1", "10.0.0.12"));
        assertFalse(tcpConnects("h1", "pb", "10.0.0.12", 6002));
        assertEquals("pb (0x8001) -> h2's 0xffff address", 0, received("pb", "10.0.0.1"));
    }

    @Test
    public void fullAndLimitedMembersReachEachOtherTwoLimitedOnesDoNot() throws Exception {
        assertEquals("h1 (full) -> h3 (limited)", 3, received("h1", "10.0.0.3"));
        assertEquals("h3 (limited) -> h1 (full)", 3, received("h3", "10.0.0.1"));
        assertTrue(tcpConnects("h1", "h3", "10.0.0.3", 6003));
        assertEquals("h3 (limited) -> h4 (limited)", 0, received("h3", "10.0.0.4"));
        assertEquals("h4 (limited) -> h3 (limited)", 0, received("h4", "10.0.0.3"));
        assertFalse(tcpConnects("h3", "h4", "10.0.0.4", 6004));
    }
}
