package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.rules.ExternalResource;

/**
 * The Linux hosts the netdev tests share: one appliance started as {@code ./ipoib --hosts 4} does,
 * and on the same fabric the hosts of the partition, connected-mode and path-MTU tests, each
 * IPoIB interface a Linux device {@code ib0} in its own network namespace:
 * <ul>
 * <li>h1..h4 ({@code 10.0.0.K/24}, P_Key 0xffff, datagram mode): h1 and h2 full members, h3 and
 * h4 limited members (the P_Key tables of their ports hold 0x7fff);
 * <li>pa and pb ({@code 10.0.0.11}, {@code .12}), P_Key 0x8001 on the ports of h1 and h2;
 * <li>cm1 and cm2 ({@code 10.8.0.1}, {@code .2}), P_Key 0x8002 on the ports of h1 and h2, both
 * interfaces in connected mode (MTU 65 520);
 * <li>pm1 and pm2 ({@code 10.9.0.1}, {@code .2}), P_Key 0x8003 on the ports of h3 and h4, pm1's
 * interface in connected mode and pm2's in datagram mode.
 * </ul>
 * Starting an appliance and its hosts is most of what these tests cost, so the classes of
 * {@link NetdevIT} share one: each takes it as a class rule; the first to start starts it, the
 * last to finish exits it (and checks that the exit removed every namespace). Tests leave the
 * hosts as they found them.
 */
final class NetdevHosts extends ExternalResource {
    static final long TIMEOUT = 60;
    static final String[] NAMESPACES = {"h1", "h2", "h3", "h4", "pa", "pb", "cm1", "cm2", "pm1", "pm2"};
    /** What {@code ipoib:netdev} shows for each bridged interface once all are up. */
    private static final String[] DEVICES = {
        "ib0_1_ffff: device ib0  netns h1  mtu 2044  link UP",
        "ib1_1_ffff: device ib0  netns h2  mtu 2044  link UP",
        "ib2_1_ffff: device ib0  netns h3  mtu 2044  link UP",
        "ib3_1_ffff: device ib0  netns h4  mtu 2044  link UP",
        "pa: device ib0  netns pa  mtu 2044  link UP",
        "pb: device ib0  netns pb  mtu 2044  link UP",
        "cma: device ib0  netns cm1  mtu 65520  link UP",
        "cmb: device ib0  netns cm2  mtu 65520  link UP",
        "pma: device ib0  netns pm1  mtu 65520  link UP",
        "pmb: device ib0  netns pm2  mtu 2044  link UP"};
    private static final NetdevHosts SHARED = new NetdevHosts();

    private int users;
    private ApplianceProcess appliance;
    private Path data;
    private String h1LinkLocal;
    private String h2LinkLocal;

    private NetdevHosts() {}

    /** The one instance: the class rule of {@link NetdevIT} and of each of its classes. */
    static NetdevHosts shared() {
        return SHARED;
    }

    static ApplianceProcess appliance() {
        return SHARED.appliance;
    }

    /** 20 MiB of random octets, for the transfers. */
    static Path data() {
        return SHARED.data;
    }

    /** The kernel's copy of the stack's RFC 4391 §8 link-local address of h1 or h2. */
    static String linkLocal(String host) {
        return switch (host) {
            case "h1" -> SHARED.h1LinkLocal;
            case "h2" -> SHARED.h2LinkLocal;
            default -> throw new IllegalArgumentException(host);
        };
    }

    @Override
    protected void before() throws Throwable {
        if (users++ > 0) {
            return;
        }
        try {
            start();
        } catch (Throwable e) {
            users--;
            if (appliance != null) {
                appliance.kill();
                appliance = null;
                // What the killed appliance left; the next run would refuse to start on it.
                for (String ns : NAMESPACES) {
                    Sh.run(10, "ip", "netns", "del", ns);
                }
            }
            throw e;
        }
    }

    @Override
    protected void after() {
        if (--users > 0) {
            return;
        }
        try {
            stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while the appliance exited", e);
        }
    }

    private void start() throws Exception {
        NetdevIT.requireTools();
        for (String ns : NAMESPACES) {
            assertFalse("network namespace " + ns + " exists already (a previous run left it? ip netns del " + ns + ")",
                    namespace(ns));
        }
        appliance = ApplianceProcess.shortLived("ipoib.defaults=false", "ipoib.hosts=4", "org.osgi.service.http.port=0",
                "ipoib.console.metricsWithoutPassword=true");
        data = Files.createTempFile("netdev", ".bin");
        byte[] bytes = new byte[20 * 1024 * 1024];
        new Random(7).nextBytes(bytes);
        Files.write(data, bytes);
        // No test here is about duplicate address detection (NdIT is): addresses added later, in the
        // kernel or by a restart of an interface, are usable at once rather than a RetransTimer later.
        String noDad = appliance.command("ipoib:config ipoib.nd dadTransmits 0", TIMEOUT);
        assertFalse(noDad, noDad.contains("nothing was changed"));
        appliance.awaitCommand("ipoib:netdev await 60", DEVICES[3], TIMEOUT);
        // h1 and h2's ports also get 0x8001 and 0x8002; h3 and h4's become limited members of the
        // default partition (their interfaces come back with a new queue pair) and get 0x8003.
        for (String port : new String[] {"loop0/1", "loop1/1"}) {
            appliance.command("fabric:pkeys " + port + " 0xffff 0x8001 0x8002", TIMEOUT);
        }
        for (String port : new String[] {"loop2/1", "loop3/1"}) {
            appliance.command("fabric:pkeys " + port + " 0x7fff 0x8003", TIMEOUT);
        }
        String[][] interfaces = {{"loop0", "0x8001", "pa"}, {"loop1", "0x8001", "pb"}, {"loop0", "0x8002", "cma"},
            {"loop1", "0x8002", "cmb"}, {"loop2", "0x8003", "pma"}, {"loop3", "0x8003", "pmb"}};
        for (String[] i : interfaces) {
            appliance.command("ipoib:create " + i[0] + " 1 " + i[1] + " " + i[2], TIMEOUT);
        }
        for (String name : new String[] {"pa", "pb", "cma", "cmb", "pma", "pmb"}) {
            appliance.awaitCommand("ipoib:await " + name + " 30", name + " UP", TIMEOUT);
        }
        for (String name : new String[] {"cma", "cmb", "pma"}) {
            appliance.command("ipoib:mode " + name + " connected", TIMEOUT);
        }
        for (String name : new String[] {"cma", "cmb", "pma"}) {
            appliance.awaitCommand("ipoib:mode " + name, name + ": connected, mtu 65520", TIMEOUT);
        }
        String[][] bridged = {{"pa", "pa", "10.0.0.11/24"}, {"pb", "pb", "10.0.0.12/24"}, {"cma", "cm1", "10.8.0.1/24"},
            {"cmb", "cm2", "10.8.0.2/24"}, {"pma", "pm1", "10.9.0.1/24"}, {"pmb", "pm2", "10.9.0.2/24"}};
        for (String[] b : bridged) {
            String added = appliance.command("ipoib:netdev add " + b[0] + " netns " + b[1] + " dev ib0 " + b[2], TIMEOUT);
            assertTrue(added, added.contains(b[0] + ": device ib0  netns " + b[1]));
        }
        awaitAllUp();
        // The kernel gets the stack's RFC 4391 §8 link-local address (mirrored from ND).
        h1LinkLocal = awaitLinkLocal("h1");
        h2LinkLocal = awaitLinkLocal("h2");
    }

    /** Waits until every host's device is listed UP with its link's MTU. */
    static void awaitAllUp() {
        String[] list = {""};
        await("every host's device UP with its link's MTU", () -> {
            list[0] = SHARED.appliance.command("ipoib:netdev await 30", TIMEOUT);
            for (String device : DEVICES) {
                if (!list[0].contains(device)) {
                    return false;
                }
            }
            return true;
        }, () -> list[0]);
    }

    private void stop() throws IOException, InterruptedException {
        try {
            if (appliance != null) {
                assertEquals(0, appliance.exit(TIMEOUT));
                // A normal exit removes the devices and the namespaces the appliance created.
                for (String ns : NAMESPACES) {
                    assertFalse(ns + " removed at exit", namespace(ns));
                }
            }
        } finally {
            appliance = null;
            if (data != null) {
                Files.deleteIfExists(data);
                data = null;
            }
        }
    }

    static boolean namespace(String name) {
        return Files.exists(Path.of("/run/netns", name));
    }

    private static String awaitLinkLocal(String ns) {
        Pattern linkLocal = Pattern.compile("inet6 (fe80::[0-9a-f:]+)/64");
        String[] out = {""};
        await(ns + "'s ib0 gets a link-local address", () -> {
            out[0] = Sh.run(10, "ip", "-n", ns, "-6", "-o", "addr", "show", "dev", "ib0", "scope", "link")
                    .ok("ip addr").output();
            return linkLocal.matcher(out[0]).find();
        }, () -> out[0]);
        Matcher m = linkLocal.matcher(out[0]);
        assertTrue(out[0], m.find());
        return m.group(1);
    }

    /** A condition that runs a tool or types a command, which may throw. */
    interface Probe {
        boolean holds() throws Exception;
    }

    /** Polls {@code probe} every 50 ms for up to {@link #TIMEOUT} seconds. */
    static void await(String what, Probe probe, Supplier<String> diagnostics) {
        Await.until(what, Duration.ofSeconds(TIMEOUT), Duration.ofMillis(50), unchecked(probe), diagnostics);
    }

    private static BooleanSupplier unchecked(Probe probe) {
        return () -> {
            try {
                return probe.holds();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
    }

    /**
     * Three pings ({@code -i 0.2}: the default second between them only adds time) from a host's
     * namespace, each answered once.
     */
    static void ping(String from, String... args) throws Exception {
        String out = Sh.run(TIMEOUT, Sh.in(from, pingCommand(args))).ok("ping from " + from).output();
        assertAnswered(out);
    }

    /**
     * {@link #ping} from {@code from} and from {@code back} at once, so that the two directions wait
     * out their 0.2 s intervals together.
     */
    static void pingBothWays(String from, String[] args, String back, String[] backArgs) throws Exception {
        File log = File.createTempFile("netdev-ping", ".log");
        try {
            Process there = Sh.start(log, Sh.in(from, pingCommand(args)));
            ping(back, backArgs);
            assertTrue("ping from " + from + " ended", there.waitFor(TIMEOUT, TimeUnit.SECONDS));
            assertEquals("ping from " + from + ":\n" + read(log), 0, there.exitValue());
            assertAnswered(read(log));
        } finally {
            log.delete();
        }
    }

    private static String[] pingCommand(String... args) {
        String[] command = new String[args.length + 6];
        System.arraycopy(new String[] {"ping", "-c", "3", "-i", "0.2", "-W5"}, 0, command, 0, 6);
        System.arraycopy(args, 0, command, 6, args.length);
        return command;
    }

    private static void assertAnswered(String out) {
        assertTrue(out, out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        // One answer per request: the kernel's; the Java host layer steps back on bridged links.
        assertFalse("duplicate replies:\n" + out, out.contains("DUP!"));
    }

    /** A counter of a bridged interface, from {@code ipoib:netdev} (0 when not shown). */
    static long counter(String link, String name) throws Exception {
        String list = SHARED.appliance.command("ipoib:netdev", TIMEOUT);
        int at = list.indexOf(link + ": device");
        int counters = list.indexOf("counters:", at);
        String line = list.substring(counters, list.indexOf('\n', counters));
        Matcher m = Pattern.compile(" " + name + " (\\d+)").matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    static String sha256(Path file) throws Exception {
        return Sh.run(TIMEOUT, "sha256sum", file.toString()).ok("sha256sum").output().split("\\s+")[0];
    }

    static String read(File file) {
        try {
            return Files.readString(file.toPath());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
