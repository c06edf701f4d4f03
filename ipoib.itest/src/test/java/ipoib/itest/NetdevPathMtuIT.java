package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * IPv4 path MTU discovery through the bridge, with the kernel's default settings: a connected-mode
 * host ({@code pma} in namespace {@code pm1}, MTU 65 520) and a datagram-mode host ({@code pmb}
 * in {@code pm2}, MTU 2 044). What pm1 sends pm2 can only go over UD, so a packet over 2 044
 * octets is refused and answered with ICMP "fragmentation needed"; pm1's kernel must accept it
 * and learn the path MTU, as from a router on the path. Needs what {@link NetdevIT} needs.
 */
public class NetdevPathMtuIT {
    private static final long TIMEOUT = 60;
    private static ApplianceProcess appliance;

    @BeforeClass
    public static void startHosts() throws Exception {
        NetdevIT.requireTools();
        for (String ns : new String[] {"pm1", "pm2"}) {
            assertFalse("network namespace " + ns + " exists already (a previous run left it? ip netns del " + ns + ")",
                    Files.exists(Path.of("/run/netns", ns)));
        }
        appliance = new ApplianceProcess("ipoib.defaults=false");
        appliance.command("ipoib:create loop0 1 0xffff pma", TIMEOUT);
        appliance.command("ipoib:create loop1 1 0xffff pmb", TIMEOUT);
        appliance.command("ipoib:await all 30", TIMEOUT);
        appliance.command("ipoib:mode pma connected", TIMEOUT);
        appliance.awaitCommand("ipoib:mode pma", "pma: connected, mtu 65520", TIMEOUT);
        appliance.command("ipoib:netdev add pma netns pm1 dev ib0 10.9.0.1/24", TIMEOUT);
        appliance.command("ipoib:netdev add pmb netns pm2 dev ib0 10.9.0.2/24", TIMEOUT);
        String list = appliance.awaitCommand("ipoib:netdev await 60", "pmb: device ib0  netns pm2", TIMEOUT);
        assertTrue(list, list.contains("pma: device ib0  netns pm1  mtu 65520  link UP"));
        assertTrue(list, list.contains("pmb: device ib0  netns pm2  mtu 2044  link UP"));
    }

    @AfterClass
    public static void stop() throws Exception {
        if (appliance != null) {
            assertEquals(0, appliance.exit(TIMEOUT));
            assertFalse("pm1 removed at exit", Files.exists(Path.of("/run/netns", "pm1")));
            assertFalse("pm2 removed at exit", Files.exists(Path.of("/run/netns", "pm2")));
        }
    }

    @Test
    public void theConnectedModeHostLearnsThePathMtuToADatagramModeHostAndFragments() throws Exception {
        // The default that made the error a martian when it came from pm1's own address.
        assertEquals("0", Sh.run(10, Sh.in("pm1", "sysctl", "-n", "net.ipv4.conf.all.accept_local"))
                .ok("sysctl").output().trim());
        // 4 028 octets with DF: too big for UD, refused, and the ICMP error goes to pm1's kernel.
        Sh.run(TIMEOUT, Sh.in("pm1", "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "4000", "10.9.0.2"));
        String[] route = {""};
        Await.until("pm1's kernel learns the path MTU 2044 to 10.9.0.2", Duration.ofSeconds(20), () -> {
            try {
                route[0] = Sh.run(10, Sh.in("pm1", "ip", "route", "get", "10.9.0.2")).ok("ip route get").output();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return route[0].contains("mtu 2044");
        }, () -> route[0]);
        // From then on the kernel fragments to the path MTU, and the large ping gets through.
        String out = Sh.run(TIMEOUT, Sh.in("pm1", "ping", "-c", "3", "-W", "5", "-M", "want", "-s", "4000",
                "10.9.0.2")).ok("ping -M want -s 4000").output();
        assertTrue(out, out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(out, out.contains("4008 bytes from 10.9.0.2"));
        // And a sender that forbids fragmentation is told the MTU at once, by its own kernel.
        String refused = Sh.run(TIMEOUT, Sh.in("pm1", "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "4000",
                "10.9.0.2")).output();
        assertTrue(refused, refused.contains("mtu=2044"));
    }
}
