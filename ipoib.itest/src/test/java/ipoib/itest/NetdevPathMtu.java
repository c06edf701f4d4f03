package ipoib.itest;

import static ipoib.itest.NetdevHosts.TIMEOUT;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.ClassRule;
import org.junit.Test;

/**
 * IPv4 path MTU discovery through the bridge, with the kernel's default settings, on the hosts pm1
 * and pm2 of {@link NetdevHosts}: pm1's interface in connected mode (MTU 65 520), pm2's in
 * datagram mode (MTU 2 044). What pm1 sends pm2 can only go over UD, so a packet over 2 044
 * octets is refused and answered with ICMP "fragmentation needed"; pm1's kernel must accept it
 * and learn the path MTU, as from a router on the path.
 */
public class NetdevPathMtu {
    @ClassRule
    public static final NetdevHosts HOSTS = NetdevHosts.shared();

    @Test
    public void theConnectedModeHostLearnsThePathMtuToADatagramModeHostAndFragments() throws Exception {
        // The default that made the error a martian when it came from pm1's own address.
        assertEquals("0", Sh.run(10, Sh.in("pm1", "sysctl", "-n", "net.ipv4.conf.all.accept_local"))
                .ok("sysctl").output().trim());
        // 4 028 octets with DF: too big for UD, refused, and the ICMP error goes to pm1's kernel.
        Sh.run(TIMEOUT, Sh.in("pm1", "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "4000", "10.9.0.2"));
        String[] route = {""};
        NetdevHosts.await("pm1's kernel learns the path MTU 2044 to 10.9.0.2", () -> (route[0] = Sh.run(10,
                Sh.in("pm1", "ip", "route", "get", "10.9.0.2")).ok("ip route get").output()).contains("mtu 2044"),
                () -> route[0]);
        // From then on the kernel fragments to the path MTU, and the large ping gets through.
        String out = Sh.run(TIMEOUT, Sh.in("pm1", "ping", "-c", "3", "-i", "0.2", "-W", "5", "-M", "want", "-s", "4000",
                "10.9.0.2")).ok("ping -M want -s 4000").output();
        assertTrue(out, out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(out, out.contains("4008 bytes from 10.9.0.2"));
        // And a sender that forbids fragmentation is told the MTU at once, by its own kernel.
        String refused = Sh.run(TIMEOUT, Sh.in("pm1", "ping", "-c", "1", "-W", "2", "-M", "do", "-s", "4000",
                "10.9.0.2")).output();
        assertTrue(refused, refused.contains("mtu=2044"));
    }
}
