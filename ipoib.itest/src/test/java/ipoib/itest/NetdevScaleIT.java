package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/**
 * An appliance of many hosts ({@code ./ipoib --hosts 40}): every host comes up as device
 * {@code ib0} in its namespace and reaches h1 across the fabric, and the exit removes every
 * namespace. One appliance, pinged from each host once.
 */
public class NetdevScaleIT {
    private static final int HOSTS = 40;
    private static final long TIMEOUT = 120;

    @Test
    public void fortyHostsComeUpAndEachReachesH1() throws Exception {
        NetdevIT.requireTools();
        for (int k = 1; k <= HOSTS; k++) {
            assertFalse("namespace h" + k + " exists already (ip netns del h" + k + ")", namespace("h" + k));
        }
        ApplianceProcess appliance = new ApplianceProcess("ipoib.defaults=false", "ipoib.hosts=" + HOSTS,
                "org.osgi.service.http.port=0");
        try {
            String last = String.format("ib%x_1_ffff: device ib0  netns h%d  mtu 2044  link UP", HOSTS - 1, HOSTS);
            String list = appliance.awaitCommand("ipoib:netdev await " + TIMEOUT, last, TIMEOUT);
            for (int k = 1; k <= HOSTS; k++) {
                String device = String.format("ib%x_1_ffff: device ib0  netns h%d  mtu 2044  link UP", k - 1, k);
                assertTrue(device + "\n" + list, list.contains(device));
            }
            // All at once, as a user's script on many hosts would: each host resolves h1 by ARP.
            List<Process> pings = new ArrayList<>();
            for (int k = 2; k <= HOSTS; k++) {
                pings.add(new ProcessBuilder(Sh.in("h" + k, "ping", "-c", "1", "-W", "10", "10.0.0.1"))
                        .redirectErrorStream(true).start());
            }
            List<String> unreached = new ArrayList<>();
            for (int k = 2; k <= HOSTS; k++) {
                Process p = pings.get(k - 2);
                if (!p.waitFor(TIMEOUT, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
                String out = new String(p.getInputStream().readAllBytes());
                if (!out.contains("1 packets transmitted, 1 received")) {
                    unreached.add("h" + k + ": " + out.strip());
                }
            }
            assertEquals("hosts that did not reach h1: " + unreached, List.of(), unreached);
        } finally {
            int status = appliance.exit(TIMEOUT);
            assertEquals(0, status);
        }
        for (int k = 1; k <= HOSTS; k++) {
            assertFalse("h" + k + " removed at exit", namespace("h" + k));
        }
    }

    private static boolean namespace(String name) {
        return Files.exists(Path.of("/run/netns", name));
    }
}
