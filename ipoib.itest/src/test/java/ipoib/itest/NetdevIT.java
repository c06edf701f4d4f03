package ipoib.itest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.ClassRule;
import org.junit.runner.RunWith;
import org.junit.runners.Suite;

/**
 * Real traffic through Linux devices: the classes that use the hosts of {@link NetdevHosts}, on
 * one appliance started once for all of them. Each class also runs alone
 * ({@code -Dit.test=NetdevPartitions}) and then starts the hosts itself. Needs root
 * (CAP_NET_ADMIN), /dev/net/tun and the Debian packages iproute2, iputils-ping, iperf3, socat,
 * netcat-openbsd, curl, python3 (installed by .ci/run); the set-up says which one is missing.
 */
@RunWith(Suite.class)
@Suite.SuiteClasses({NetdevTraffic.class, NetdevPartitions.class, NetdevConnectedMode.class, NetdevPathMtu.class})
public class NetdevIT {
    @ClassRule
    public static final NetdevHosts HOSTS = NetdevHosts.shared();

    static void requireTools() throws Exception {
        String missing = null;
        if (!Files.exists(Path.of("/dev/net/tun"))) {
            missing = "/dev/net/tun (modprobe tun)";
        }
        for (String tool : new String[] {"ip", "ping", "iperf3", "socat", "nc", "curl", "python3", "sha256sum", "ss"}) {
            if (missing == null && Sh.run(10, "sh", "-c", "command -v " + tool).status() != 0) {
                missing = tool + " (Debian packages iproute2 iputils-ping iperf3 socat netcat-openbsd curl python3)";
            }
        }
        String status = Files.readString(Path.of("/proc/self/status"));
        Matcher cap = Pattern.compile("CapEff:\\s*([0-9a-f]+)").matcher(status);
        if (missing == null && (!cap.find() || (Long.parseUnsignedLong(cap.group(1), 16) & (1L << 12)) == 0)) {
            missing = "CAP_NET_ADMIN (run the tests as root)";
        }
        if (missing != null) {
            throw new AssertionError("the netdev integration tests need " + missing);
        }
    }
}
