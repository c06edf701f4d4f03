package ipoib.itest;

import static ipoib.itest.NetdevHosts.TIMEOUT;
import static ipoib.itest.NetdevHosts.read;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Partitions seen by real ping and TCP, on the hosts of {@link NetdevHosts}:
 * <ul>
 *   <li>pa and pb on P_Key 0x8001 (on the ports of h1 and h2, with addresses in h1..h4's subnet):
 *       pa and pb reach each other, h1 (0xffff) cannot reach pb although its address is on-link;</li>
 *   <li>h3 and h4 limited members of the default partition (P_Key table 0x7fff): a full member
 *       (h1) and a limited one reach each other, two limited members do not (IBA 10.9.3: a
 *       limited member accepts only packets of full members).</li>
 * </ul>
 * What must not get through can only be seen as silence for a while, so the checks of both tests
 * start at once, before either test, and wait out that while together.
 */
public class NetdevPartitions {
    @ClassRule
    public static final NetdevHosts HOSTS = NetdevHosts.shared();

    /** The probes of both tests, started together before either: their silences are waited out once. */
    private static Reachability partitions;
    private static Reachability membership;

    @BeforeClass
    public static void startProbes() throws Exception {
        partitions = new Reachability();
        partitions.ping("pa", "10.0.0.12", "pa -> pb, both on 0x8001", true);
        partitions.tcp("pa", "pb", "10.0.0.12", 6001, true);
        partitions.ping("h1", "10.0.0.12", "h1 (0xffff) -> pb (0x8001)", false);
        partitions.tcp("h1", "pb", "10.0.0.12", 6002, false);
        partitions.ping("pb", "10.0.0.1", "pb (0x8001) -> h1's 0xffff address", false);
        membership = new Reachability();
        membership.ping("h1", "10.0.0.3", "h1 (full) -> h3 (limited)", true);
        membership.ping("h3", "10.0.0.1", "h3 (limited) -> h1 (full)", true);
        membership.tcp("h1", "h3", "10.0.0.3", 6003, true);
        membership.ping("h3", "10.0.0.4", "h3 (limited) -> h4 (limited)", false);
        membership.ping("h4", "10.0.0.3", "h4 (limited) -> h3 (limited)", false);
        membership.tcp("h3", "h4", "10.0.0.4", 6004, false);
    }

    /** A test that did not run (filtered out) leaves no probe or listener behind. */
    @AfterClass
    public static void stopProbes() throws Exception {
        for (Reachability r : new Reachability[] {partitions, membership}) {
            if (r != null) {
                r.stop();
            }
        }
    }

    @Test
    public void hostsOfOnePartitionReachEachOtherButNotAnotherPartition() throws Exception {
        partitions.check();
    }

    @Test
    public void fullAndLimitedMembersReachEachOtherTwoLimitedOnesDoNot() throws Exception {
        membership.check();
    }

    /** Pings and TCP connections started together, then checked together. */
    private static final class Reachability {
        private static final Pattern RECEIVED = Pattern.compile("(\\d+) received");
        private final Map<String, Boolean> expected = new LinkedHashMap<>();
        private final Map<String, Process> probes = new LinkedHashMap<>();
        private final Map<String, File> logs = new LinkedHashMap<>();
        private final List<Process> listeners = new ArrayList<>();

        /**
         * Three pings from a namespace; all answered, or none within 1 s of the last (an answer on
         * the loopback fabric takes milliseconds).
         */
        void ping(String from, String to, String what, boolean reaches) throws Exception {
            start(what, reaches, Sh.in(from, "ping", "-c", "3", "-i", "0.2", "-W", reaches ? "5" : "1", to));
        }

        /** A TCP connection to an nc listening in {@code toNs}: made, or not within 1 s. */
        void tcp(String from, String toNs, String to, int port, boolean connects) throws Exception {
            File log = File.createTempFile("netdev-listen", ".log");
            logs.put("listener " + toNs + ":" + port, log);
            listeners.add(Sh.start(log, Sh.in(toNs, "nc", "-l", "-p", Integer.toString(port))));
            Sh.awaitListening(toNs, port, TIMEOUT);
            start("TCP " + from + " -> " + to + ":" + port, connects,
                    Sh.in(from, "nc", "-z", "-w", connects ? "5" : "1", to, Integer.toString(port)));
        }

        private void start(String what, boolean reaches, String... command) throws Exception {
            File log = File.createTempFile("netdev-reach", ".log");
            logs.put(what, log);
            expected.put(what, reaches);
            probes.put(what, Sh.start(log, command));
        }

        void check() throws Exception {
            try {
                for (Map.Entry<String, Process> p : probes.entrySet()) {
                    String what = p.getKey();
                    assertTrue(what + " ended", p.getValue().waitFor(TIMEOUT, TimeUnit.SECONDS));
                    String out = read(logs.get(what));
                    if (what.startsWith("TCP ")) {
                        assertEquals(what + " connects:\n" + out, expected.get(what), p.getValue().exitValue() == 0);
                    } else {
                        Matcher m = RECEIVED.matcher(out);
                        assertTrue(out, m.find());
                        assertEquals(what + ":\n" + out, expected.get(what) ? 3 : 0, Integer.parseInt(m.group(1)));
                    }
                }
            } finally {
                stop();
            }
        }

        /** Ends the probes and listeners still running and deletes the logs (again: nothing). */
        void stop() throws InterruptedException {
            for (Process p : probes.values()) {
                p.destroy();
                p.waitFor();
            }
            for (Process l : listeners) {
                l.destroy();
                l.waitFor();
            }
            logs.values().forEach(File::delete);
        }
    }
}
