package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code ./ipoib --hosts 2} driven through a pipe and ended by a signal, as a closed terminal
 * (SIGHUP), Ctrl-C (SIGINT) or {@code kill} (SIGTERM) ends it: {@code ./ipoib} execs the JVM, whose
 * shutdown stops the framework and runs the hook that removes the devices and the namespaces it
 * made, as {@code exit 0} does, within seconds. The JVM ends the same way on each of the three
 * (its one handler for them starts the shutdown, and it exits with 128 + the signal's number), so
 * the appliance itself is ended by one, SIGHUP, and for SIGINT and SIGTERM {@code ./ipoib --hosts 2}
 * runs a {@link StandInAppliance}, whose shutdown hook says that it ran: a start of the appliance
 * per signal would cost about 6 s of CPU each and test the same shutdown. The three run at the
 * same time; the appliance names its hosts' namespaces after its signal ({@code ipoib.hosts.netns}:
 * sighup1, sighup2) and takes neither of the default names h1, h2.
 */
public class ApplianceSignalIT {
    private static final int HOSTS = 2;
    /** "Within a few seconds": the teardown of two hosts takes well under one (docs/PERFORMANCE.md). */
    private static final long TEARDOWN_LIMIT_MILLIS = 10_000;
    private static final List<String> DEFAULT_NAMES = List.of("h1", "h2");

    private static final ExecutorService FORKS = Executors.newFixedThreadPool(3, r -> {
        Thread t = new Thread(r, "ApplianceSignalIT-fork");
        t.setDaemon(true);
        return t;
    });
    private static final Map<String, Future<?>> ENDINGS = new java.util.HashMap<>();

    @BeforeClass
    public static void startTheApplianceAndTheStandIns() throws Exception {
        NetdevIT.requireTools();
        for (String ns : DEFAULT_NAMES) {
            assertFalse("network namespace " + ns + " exists already (ip netns del " + ns + ")", namespace(ns));
        }
        ENDINGS.put("HUP", FORKS.submit(() -> {
            applianceEndedBy("HUP", 1);
            return null;
        }));
        ENDINGS.put("INT", FORKS.submit(() -> {
            standInEndedBy("INT", 2);
            return null;
        }));
        ENDINGS.put("TERM", FORKS.submit(() -> {
            standInEndedBy("TERM", 15);
            return null;
        }));
    }

    @AfterClass
    public static void stopWaiting() {
        FORKS.shutdownNow();
    }

    @Test
    public void sighupRemovesTheHostsAsExitDoes() throws Exception {
        ended("HUP");
    }

    @Test
    public void sigintEndsTheJvmThroughItsShutdownHooks() throws Exception {
        ended("INT");
    }

    @Test
    public void sigtermEndsTheJvmThroughItsShutdownHooks() throws Exception {
        ended("TERM");
    }

    private static void ended(String signal) throws Exception {
        try {
            ENDINGS.get(signal).get(240, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError failure) {
                throw failure;
            }
            throw e;
        }
    }

    private static void applianceEndedBy(String signal, int number) throws Exception {
        String prefix = "sig" + signal.toLowerCase(Locale.ROOT);
        for (int k = 1; k <= HOSTS; k++) {
            assertFalse("network namespace " + prefix + k + " exists already (ip netns del " + prefix + k + ")",
                    namespace(prefix + k));
        }
        long started = System.nanoTime();
        // As from a terminal: the signal's default action, even when this JVM inherited it ignored.
        try (IpoibCommand ipoib = IpoibCommand.startWithDefaultSignals(Map.of(), List.of("-Dipoib.hosts.netns=" + prefix),
                "--hosts", String.valueOf(HOSTS))) {
            ipoib.send("ipoib:netdev await 60\necho ready\n");
            ipoib.awaitOut("g! echo ready\nready\n", 120);
            System.out.println("ApplianceSignalIT: " + HOSTS + " hosts up " + (System.nanoTime() - started) / 1_000_000
                    + " ms after ./ipoib was started");
            String list = ipoib.out();
            assertTrue(list, list.contains("ib1_1_ffff: device ib0  netns " + prefix + "2  mtu 2044  link UP"));
            for (int k = 1; k <= HOSTS; k++) {
                assertTrue(prefix + k + " made", namespace(prefix + k));
                Sh.run(10, "ip", "-n", prefix + k, "link", "show", "ib0").ok("ip -n " + prefix + k + " link show ib0");
            }
            for (String ns : DEFAULT_NAMES) {
                assertFalse("the hosts take " + prefix + "1.., not " + ns, namespace(ns));
            }
            int status = signal(ipoib, signal);
            // The JVM ends as a process killed by the signal is reported by a shell: 128 + its number.
            assertEquals("exit status; stderr:\n" + ipoib.err(), 128 + number, status);
            for (int k = 1; k <= HOSTS; k++) {
                assertFalse(prefix + k + " removed at exit (SIG" + signal + ")", namespace(prefix + k));
            }
            assertFalse("nothing left to clean up:\n" + ipoib.err(), ipoib.err().contains("Exception"));
        }
    }

    /**
     * {@code ./ipoib --hosts 2} with the stand-in as its appliance: it passes the hosts on, and the
     * signal reaches the JVM, which runs its shutdown hooks and exits with 128 + the signal's number.
     */
    private static void standInEndedBy(String signal, int number) throws Exception {
        try (IpoibCommand ipoib = IpoibCommand.standInWithDefaultSignals(StandInAppliance.jar().toFile(),
                "--hosts", String.valueOf(HOSTS))) {
            ipoib.send("echo ready\n");
            ipoib.awaitOut("g! echo ready\nready\n", 60);
            assertTrue(ipoib.out(), ipoib.out().contains("stand-in: ipoib.hosts=" + HOSTS + " ipoib.defaults=false"));
            assertFalse("no shutdown before the signal:\n" + ipoib.out(),
                    ipoib.out().contains(StandInAppliance.SHUTDOWN_HOOKS_RAN));
            int status = signal(ipoib, signal);
            assertEquals("exit status; stderr:\n" + ipoib.err(), 128 + number, status);
            assertTrue("the shutdown hooks ran (SIG" + signal + "):\n" + ipoib.out(),
                    ipoib.out().contains(StandInAppliance.SHUTDOWN_HOOKS_RAN + "\n"));
            assertFalse(ipoib.err(), ipoib.err().contains("Exception"));
        }
    }

    /** Sends {@code signal} to the JVM {@code ./ipoib} became; returns its exit status. */
    private static int signal(IpoibCommand ipoib, String signal) throws Exception {
        long signalled = System.nanoTime();
        Sh.run(10, "kill", "-" + signal, String.valueOf(ipoib.pid())).ok("kill -" + signal);
        int status = ipoib.awaitExit(TEARDOWN_LIMIT_MILLIS / 1000);
        System.out.println("ApplianceSignalIT: SIG" + signal + " to exit: " + (System.nanoTime() - signalled) / 1_000_000
                + " ms");
        return status;
    }

    private static boolean namespace(String name) {
        return Files.exists(Path.of("/run/netns", name));
    }
}
