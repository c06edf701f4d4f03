package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code ./ipoib --hosts 2} driven through a pipe and ended by a signal, as a closed terminal
 * (SIGHUP), Ctrl-C (SIGINT) or {@code kill} (SIGTERM) ends it: the JVM's shutdown stops the
 * framework, which removes the devices and the namespaces it made, as {@code exit 0} does,
 * within seconds. One appliance per signal.
 */
public class ApplianceSignalIT {
    private static final String[] HOSTS = {"h1", "h2"};
    /** "Within a few seconds": the teardown of two hosts takes well under one (docs/PERFORMANCE.md). */
    private static final long TEARDOWN_LIMIT_MILLIS = 10_000;

    @BeforeClass
    public static void requireRootAndTools() throws Exception {
        NetdevIT.requireTools();
    }

    @Test
    public void sighupRemovesTheHostsAsExitDoes() throws Exception {
        endBy("HUP", 1);
    }

    @Test
    public void sigintRemovesTheHostsAsExitDoes() throws Exception {
        endBy("INT", 2);
    }

    @Test
    public void sigtermRemovesTheHostsAsExitDoes() throws Exception {
        endBy("TERM", 15);
    }

    private static void endBy(String signal, int number) throws Exception {
        for (String ns : HOSTS) {
            assertFalse("network namespace " + ns + " exists already (ip netns del " + ns + ")", namespace(ns));
        }
        try (IpoibCommand ipoib = IpoibCommand.start("--hosts", String.valueOf(HOSTS.length))) {
            ipoib.send("ipoib:netdev await 60\necho ready\n");
            ipoib.awaitOut("g! echo ready\nready\n", 120);
            String list = ipoib.out();
            assertTrue(list, list.contains("ib1_1_ffff: device ib0  netns h2  mtu 2044  link UP"));
            for (String ns : HOSTS) {
                assertTrue(ns + " made", namespace(ns));
                Sh.run(10, "ip", "-n", ns, "link", "show", "ib0").ok("ip -n " + ns + " link show ib0");
            }
            long signalled = System.nanoTime();
            Sh.run(10, "kill", "-" + signal, String.valueOf(ipoib.pid())).ok("kill -" + signal);
            int status = ipoib.awaitExit(TEARDOWN_LIMIT_MILLIS / 1000);
            long millis = (System.nanoTime() - signalled) / 1_000_000;
            System.out.println("ApplianceSignalIT: SIG" + signal + " to exit with " + HOSTS.length + " hosts: " + millis
                    + " ms");
            // The JVM ends as a process killed by the signal is reported by a shell: 128 + its number.
            assertEquals("exit status; stderr:\n" + ipoib.err(), 128 + number, status);
            for (String ns : HOSTS) {
                assertFalse(ns + " removed at exit (SIG" + signal + ")", namespace(ns));
            }
            assertFalse("nothing left to clean up:\n" + ipoib.err(), ipoib.err().contains("Exception"));
        }
    }

    private static boolean namespace(String name) {
        return Files.exists(Path.of("/run/netns", name));
    }
}
