package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code ./ipoib --hosts 4 --opensm --topology examples/two-switches.net} as a user types it,
 * driven through a pipe, with {@code ./ipoib diag} beside it: the launcher starts Debian's OpenSM
 * and says where its log is; the hosts' interfaces come up on the broadcast group OpenSM created;
 * the hosts ping (IPv4 and IPv6) and run iperf3 from hca0 on sw1 to hca1 on sw2, over a route
 * that crosses an inter-switch link; taking that link down under a TCP stream makes OpenSM
 * re-sweep (trap 128) and reprogram sw1's forwarding table, and the stream resumes; at exit
 * OpenSM, its directory, its socket and the hosts are gone. One appliance for the class. The
 * hosts' namespaces are osm1..osm4 (framework property {@code ipoib.hosts.netns}), not the h1..hN
 * of the netdev tests. Needs root; on a shared machine run under {@code flock /tmp/ipoib-netns.lock}.
 * <p>
 * The time from the link's down to the first byte the stream delivers again is printed; system
 * property {@code opensm.heal.runs} (default 1) repeats the down (and an up after it) on the
 * same stream to measure it several times (docs/OPENSM.md).
 */
public class OpenSmHostsIT {
    private static final long TIMEOUT = 60;
    private static final String[] HOSTS = {"osm1", "osm2", "osm3", "osm4"};
    private static final String BROADCAST = "ff12:401b:ffff::ffff:ffff";
    /** A TCP sender that paces itself (16 KiB every 2 ms at most), so that the test JVM counting what arrives keeps up. */
    private static final String PACED_SENDER = "import socket, sys, time\n"
            + "s = socket.create_connection((sys.argv[1], int(sys.argv[2])))\n"
            + "b = bytes(16384)\n"
            + "while True:\n"
            + "    s.sendall(b)\n"
            + "    time.sleep(0.002)\n";

    private static String simName;
    private static IpoibCommand ipoib;
    private static Path openSmDir;
    private static long openSmPid;
    private static int commands;

    @BeforeClass
    public static void startAsAUserDoes() throws Exception {
        for (String ns : HOSTS) {
            assertFalse("network namespace " + ns + " exists already (a previous run left it? ip netns del " + ns + ")",
                    NetdevHosts.namespace(ns));
        }
        simName = "ipoib-it-hosts-" + ProcessHandle.current().pid();
        ipoib = IpoibCommand.start(Map.of("IPOIB_SIM_NAME", simName), List.of("-Dipoib.hosts.netns=osm"),
                "--hosts", "4", "--opensm", "--topology", "examples/two-switches.net");
        // While the appliance starts (a missing tool still fails the class, and the appliance exits after it).
        NetdevIT.requireTools();
        Pattern where = Pattern.compile("ipoib: OpenSM manages the fabric through @" + Pattern.quote(simName)
                + ":ctl; its log: (/\\S+)/opensm\\.log \\(removed at exit\\)\n");
        String[] err = {""};
        await("./ipoib says where OpenSM's log is", () -> where.matcher(err[0] = ipoib.err()).find(), () -> err[0]);
        Matcher m = where.matcher(err[0]);
        assertTrue(m.find());
        openSmDir = Path.of(m.group(1));
        await("OpenSM's log says SUBNET UP", () -> Files.exists(openSmDir.resolve("opensm.log"))
                && openSmLog().contains("SUBNET UP"), () -> ipoib.err());
        openSmPid = Long.parseLong(Files.readString(openSmDir.resolve("opensm.pid")).trim());
        assertTrue("OpenSM runs: " + openSmPid, ProcessHandle.of(openSmPid).flatMap(p -> p.info().command())
                .map(c -> c.endsWith("/opensm")).orElse(false));
        String[] list = {""};
        await("every host's device UP", () -> {
            list[0] = command("ipoib:netdev await 30");
            for (int k = 1; k <= HOSTS.length; k++) {
                if (!list[0].contains("ib" + (k - 1) + "_1_ffff: device ib0  netns osm" + k + "  mtu 2044  link UP")) {
                    return false;
                }
            }
            return true;
        }, () -> list[0]);
    }

    @AfterClass
    public static void exitRemovesOpenSmItsFilesAndTheHosts() throws Exception {
        if (ipoib == null) {
            return;
        }
        try {
            ipoib.send("exit 0\n");
            assertEquals(0, ipoib.awaitExit(TIMEOUT));
            if (openSmDir != null) {
                assertFalse("OpenSM " + openSmPid + " stopped at exit", ProcessHandle.of(openSmPid)
                        .map(ProcessHandle::isAlive).orElse(false));
                assertFalse(openSmDir + " removed at exit", Files.exists(openSmDir));
            }
            String sockets = Sh.run(10, "ss", "-xaH").ok("ss -xaH").output();
            assertFalse("no socket @" + simName + ":... after exit:\n" + sockets, sockets.contains("@" + simName + ":"));
            for (String ns : HOSTS) {
                assertFalse(ns + " removed at exit", NetdevHosts.namespace(ns));
            }
        } finally {
            ipoib.close();
            ipoib = null;
        }
    }

    @Test
    public void theHostsComeUpOnOpenSmsBroadcastGroupAndPingAndRunIperf3AcrossTheSwitches() throws Exception {
        String links = command("ipoib:links");
        Matcher joined = Pattern.compile("ib(\\d)_1_ffff: UP \\(joined " + Pattern.quote(BROADCAST)
                + " \\(MLID (0x[0-9a-f]+),").matcher(links);
        List<String> mlids = new ArrayList<>();
        while (joined.find()) {
            mlids.add(joined.group(2));
        }
        assertEquals(links, 4, mlids.size());
        // The MLID the interfaces joined is the one OpenSM gave the group (saquery asks OpenSM's SA),
        // asked while the hosts ping.
        java.util.concurrent.FutureTask<String> saquery = new java.util.concurrent.FutureTask<>(
                () -> diag("saquery", "-g"));
        Thread.ofPlatform().daemon().name("opensm-it-saquery").start(saquery);

        // osm1 is hca0 on sw1, osm2 hca1 on sw2 (the HCAs in the net file's order). The iperf3 server
        // starts and the IPv4 pings run while IPv6 finds its neighbour: independent of each other, they
        // wait at the same time.
        File log = File.createTempFile("opensm-iperf3", ".log");
        Process server = Sh.start(log, Sh.in("osm2", "iperf3", "-s", "-1", "-p", "5301"));
        try {
            java.util.concurrent.FutureTask<Void> ipv4 = new java.util.concurrent.FutureTask<>(() -> {
                NetdevHosts.ping("osm1", "10.0.0.2");
                return null;
            });
            Thread.ofPlatform().daemon().name("opensm-it-ipv4-ping").start(ipv4);
            String osm2 = linkLocal("osm2") + "%ib0";
            long asked = System.nanoTime();
            String[] probe = {""};
            // A request every 0.2 s until the first reply (ping's -w deadline with -c 1): a request lost while
            // the neighbour and its path are resolved costs 0.2 s, not a whole -W timeout.
            await("a first IPv6 echo reply from osm2", () -> (probe[0] = Sh.run(10, Sh.in("osm1", "ping", "-6", "-c",
                    "1", "-i", "0.2", "-w", "5", osm2)).output()).contains(" 1 received"), () -> probe[0]);
            System.out.println("OpenSmHostsIT: the first IPv6 echo reply from a new neighbour after "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked) + " ms");
            NetdevHosts.ping("osm1", "-6", osm2);
            result(ipv4, "IPv4 ping from osm1");
            String groups = result(saquery, "saquery -g");
            Matcher record = Pattern.compile("MGID\\.+" + Pattern.quote(BROADCAST) + "\\s+Mlid\\.+(0x[0-9A-Fa-f]+)")
                    .matcher(groups);
            assertTrue(groups, record.find());
            for (String mlid : mlids) {
                assertEquals(groups, Integer.decode(record.group(1)), Integer.decode(mlid));
            }
            Sh.awaitListening("osm2", 5301, TIMEOUT);
            // 4 MB: TCP across both switches start to end; what the path carries per second is ./ipoib bench's.
            String client = Sh.run(TIMEOUT, Sh.in("osm1", "iperf3", "-c", "10.0.0.2", "-p", "5301", "-n", "4M"))
                    .ok("iperf3 -c from osm1").output();
            assertTrue(client, client.contains("receiver") && client.contains("iperf Done."));
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
            log.delete();
        }
    }

    @Test
    public void ibtracertShowsTheRouteFromSw1ToSw2OverAnInterSwitchLink() throws Exception {
        Lids lids = lids();
        String trace = diag("ibtracert", String.valueOf(lids.hca0), String.valueOf(lids.hca1));
        // The net file cables sw1 and sw2 on ports 7 and 8.
        assertTrue(trace, Pattern.compile("(?m)^\\[[78]\\] -> switch port \\{0x[0-9a-f]+\\}\\[[78]\\] lid \\d+-\\d+ \"sw2\"$")
                .matcher(trace).find());
        assertTrue(trace, trace.contains("To ca {") && trace.contains("\"hca1\""));
    }

    @Test
    public void aDownedInterSwitchLinkUnderAStreamMakesOpenSmRerouteAndTheStreamResumes() throws Exception {
        Lids lids = lids();
        int runs = Integer.getInteger("opensm.heal.runs", 1);
        List<Long> heals = new ArrayList<>();
        List<Long> sweeps = new ArrayList<>();
        Process receiver = new ProcessBuilder(Sh.in("osm2", "socat", "-u", "TCP-LISTEN:7100,reuseaddr", "STDOUT"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        StreamArrivals arrivals = new StreamArrivals(receiver.getInputStream());
        File log = File.createTempFile("opensm-sender", ".log");
        Process sender = null;
        try {
            Sh.awaitListening("osm2", 7100, TIMEOUT);
            sender = Sh.start(log, Sh.in("osm1", "python3", "-c", PACED_SENDER, "10.0.0.2", "7100"));
            awaitBytes(arrivals, 1 << 20, log);
            for (int run = 0; run < runs; run++) {
                int port = sw1PortTo(lids);
                assertTrue("sw1 forwards hca1's LID on an inter-switch port: " + port, port == 7 || port == 8);
                int traps = count(openSmLog(), "num:128");
                int subnetUps = count(openSmLog(), "SUBNET UP");
                long downAt = System.nanoTime();
                String down = command("fabric:down sw1 " + port);
                assertTrue(down, down.contains("sw1/" + port + " DOWN"));
                await("OpenSM receives trap 128 and sweeps again", () -> count(openSmLog(), "num:128") > traps
                        && count(openSmLog(), "SUBNET UP") > subnetUps, () -> openSmLog());
                int[] now = {port};
                await("sw1's forwarding table sends hca1's LID over the other link", () -> (now[0] = sw1PortTo(lids)) != port,
                        () -> "still port " + now[0]);
                assertEquals(port == 7 ? 8 : 7, now[0]);
                awaitBytes(arrivals, arrivals.bytes() + (1 << 20), log);
                long heal = arrivals.resumedAfter(downAt);
                assertTrue("bytes arrived after the down", heal >= 0);
                heals.add(TimeUnit.NANOSECONDS.toMillis(heal));
                long reaction = openSmReactionMillis(openSmLog(), traps);
                sweeps.add(reaction);
                if (reaction > 1000) {
                    // Not a failure (no time bound here), but worth seeing what OpenSM waited for.
                    System.out.println("OpenSmHostsIT: OpenSM took " + reaction + " ms from trap 128 to SUBNET UP:\n"
                            + openSmLog().substring(nthIndexOf(openSmLog(), "num:128", traps + 1)));
                }
                String trace = diag("ibtracert", String.valueOf(lids.hca0), String.valueOf(lids.hca1));
                assertTrue(trace, trace.contains("[" + now[0] + "] -> switch port "));
                // Back as found: the link up again, and OpenSM's sweep after it.
                int upTraps = count(openSmLog(), "num:128");
                int upSweeps = count(openSmLog(), "SUBNET UP");
                String up = command("fabric:up sw1 " + port);
                assertTrue(up, up.contains("sw1/" + port + " INIT (and its peer sw2/" + port + ")"));
                await("OpenSM sweeps after the link is up again", () -> count(openSmLog(), "num:128") > upTraps
                        && count(openSmLog(), "SUBNET UP") > upSweeps, () -> openSmLog());
            }
            assertTrue("the stream is still alive", sender.isAlive());
        } finally {
            if (sender != null) {
                sender.destroy();
                sender.waitFor(10, TimeUnit.SECONDS);
            }
            receiver.destroy();
            receiver.waitFor(10, TimeUnit.SECONDS);
            log.delete();
        }
        List<Long> sorted = heals.stream().sorted().toList();
        System.out.println("OpenSmHostsIT: " + runs + " down(s) of the inter-switch link under a TCP stream: first byte "
                + "again after " + heals + " ms (median " + sorted.get(sorted.size() / 2) + ", min " + sorted.get(0)
                + ", max " + sorted.get(sorted.size() - 1) + "); OpenSM from trap 128 to SUBNET UP " + sweeps + " ms");
    }

    /** What a task on a thread of its own returned; its assertion failure as it is. */
    private static <T> T result(java.util.concurrent.FutureTask<T> task, String what) throws Exception {
        try {
            return task.get(TIMEOUT, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof AssertionError a ? a : new AssertionError(what, e.getCause());
        }
    }

    /** The LIDs OpenSM gave, as ibnetdiscover shows them. */
    private record Lids(int sw1, int hca0, int hca1) {}

    /** Asked once: OpenSM keeps a port's LID across sweeps (its guid2lid table), a link's down and up included. */
    private static Lids lids;

    private static Lids lids() throws Exception {
        if (lids == null) {
            String topology = diag("ibnetdiscover");
            lids = new Lids(lid(topology, "# \"sw1\" base port 0 lid (\\d+)"), lid(topology, "# \"hca0\" lid (\\d+)"),
                    lid(topology, "# \"hca1\" lid (\\d+)"));
        }
        return lids;
    }

    private static int lid(String topology, String regex) {
        Matcher m = Pattern.compile(regex).matcher(topology);
        assertTrue(regex + " in:\n" + topology, m.find());
        return Integer.parseInt(m.group(1));
    }

    /** The port sw1's linear forwarding table sends hca1's LID to, as ibroute shows it. */
    private static int sw1PortTo(Lids lids) throws Exception {
        String table = diag("ibroute", String.valueOf(lids.sw1));
        Matcher m = Pattern.compile(String.format("(?m)^0x%04x (\\d{3}) :", lids.hca1)).matcher(table);
        assertTrue(table, m.find());
        return Integer.parseInt(m.group(1));
    }

    private static void awaitBytes(StreamArrivals arrivals, long bytes, File senderLog) {
        Await.until(bytes + " bytes of the stream arrived", Duration.ofSeconds(TIMEOUT), Duration.ofMillis(20),
                () -> arrivals.bytes() >= bytes, () -> "arrived " + arrivals.bytes() + "; sender: "
                        + NetdevHosts.read(senderLog));
    }

    /**
     * What OpenSM's log says of its reaction to the trap after the first {@code trapsBefore}: from its
     * "Received Generic Notice ... num:128" line to the next SUBNET UP, in ms (the log's times are in µs).
     */
    private static long openSmReactionMillis(String log, int trapsBefore) {
        Pattern stamp = Pattern.compile("(?m)^\\w{3} +\\d+ (\\d\\d):(\\d\\d):(\\d\\d) (\\d{6}) .*");
        Matcher line = stamp.matcher(log);
        int traps = 0;
        long trapAt = -1;
        while (line.find()) {
            long micros = ((Long.parseLong(line.group(1)) * 60 + Long.parseLong(line.group(2))) * 60
                    + Long.parseLong(line.group(3))) * 1_000_000 + Long.parseLong(line.group(4));
            if (line.group().contains("num:128") && ++traps == trapsBefore + 1) {
                trapAt = micros;
            } else if (trapAt >= 0 && line.group().contains("SUBNET UP")) {
                return (micros - trapAt) / 1000;
            }
        }
        return -1;
    }

    /** Where the line with the {@code n}-th occurrence of {@code what} starts. */
    private static int nthIndexOf(String text, String what, int n) {
        int at = -1;
        for (int i = 0; i < n; i++) {
            at = text.indexOf(what, at + 1);
        }
        return text.lastIndexOf('\n', at) + 1;
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int at = text.indexOf(what); at >= 0; at = text.indexOf(what, at + what.length())) {
            n++;
        }
        return n;
    }

    private static String openSmLog() throws IOException {
        return Files.readString(openSmDir.resolve("opensm.log"), StandardCharsets.ISO_8859_1);
    }

    private static String linkLocal(String ns) throws Exception {
        Pattern linkLocal = Pattern.compile("inet6 (fe80::[0-9a-f:]+)/64");
        String[] out = {""};
        await(ns + "'s ib0 has a link-local address", () -> linkLocal.matcher(out[0] = Sh.run(10, "ip", "-n", ns, "-6",
                "-o", "addr", "show", "dev", "ib0", "scope", "link").ok("ip addr").output()).find(), () -> out[0]);
        Matcher m = linkLocal.matcher(out[0]);
        assertTrue(m.find());
        return m.group(1);
    }

    /** {@code ./ipoib diag TOOL ARGS} against this appliance; its standard output. */
    private static String diag(String... toolAndArgs) throws Exception {
        List<String> command = new ArrayList<>(List.of(new File(IpoibCommand.workspace(), "ipoib").getPath(), "diag"));
        command.addAll(List.of(toolAndArgs));
        File out = File.createTempFile("opensm-diag", ".out");
        File err = File.createTempFile("opensm-diag", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out).redirectError(err)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            pb.environment().put("IPOIB_SIM_NAME", simName);
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(command + " did not end within " + TIMEOUT + " s");
            }
            String stdout = Files.readString(out.toPath(), StandardCharsets.ISO_8859_1);
            assertEquals(command + ":\n" + stdout + Files.readString(err.toPath(), StandardCharsets.ISO_8859_1), 0,
                    p.exitValue());
            return stdout;
        } finally {
            out.delete();
            err.delete();
        }
    }

    /** A command at the appliance's prompt; what it printed. */
    private static String command(String line) throws IOException {
        String end = "end-of-command-" + ++commands;
        int from = ipoib.out().length();
        ipoib.send(line + "\necho " + end + "\n");
        // The answer of echo, not the command line (a prompt or a line end before it).
        Pattern answer = Pattern.compile("(?:\n|g! )" + end + "\n");
        String[] out = {""};
        Await.until("'" + line + "' answered", Duration.ofSeconds(TIMEOUT), Duration.ofMillis(20),
                () -> answer.matcher(out[0] = read(ipoib)).find(from), () -> out[0].substring(from));
        Matcher m = answer.matcher(out[0]);
        assertTrue(m.find(from));
        return out[0].substring(from, m.start());
    }

    private static String read(IpoibCommand command) {
        try {
            return command.out();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void await(String what, NetdevHosts.Probe probe, java.util.concurrent.Callable<String> diagnostics) {
        NetdevHosts.await(what, probe, () -> {
            try {
                return diagnostics.call();
            } catch (Exception e) {
                return e.toString();
            }
        });
    }

    /** Reads a stream to its end on a thread of its own, noting when each read returned and the total so far. */
    private static final class StreamArrivals {
        private static final int MAX_READS = 1 << 20;
        private final long[] at = new long[MAX_READS];
        private final long[] total = new long[MAX_READS];
        private volatile int reads;
        private volatile long bytes;

        StreamArrivals(java.io.InputStream in) {
            Thread reader = new Thread(() -> {
                byte[] buffer = new byte[1 << 16];
                try {
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        long now = System.nanoTime();
                        long sum = bytes + n;
                        int i = reads;
                        if (i < MAX_READS) {
                            at[i] = now;
                            total[i] = sum;
                            reads = i + 1;
                        }
                        bytes = sum;
                    }
                } catch (IOException e) {
                    // the receiver was stopped
                }
            }, "opensm-it-stream");
            reader.setDaemon(true);
            reader.start();
        }

        long bytes() {
            return bytes;
        }

        /**
         * From {@code downAt} to the end of the longest pause between two reads that ends after it: the
         * first byte delivered again after the stall the down caused; -1 when nothing arrived after it.
         */
        long resumedAfter(long downAt) {
            int n = reads;
            long longest = -1;
            long resumed = -1;
            for (int i = 1; i < n; i++) {
                if (at[i] > downAt && at[i] - at[i - 1] > longest) {
                    longest = at[i] - at[i - 1];
                    resumed = at[i];
                }
            }
            return resumed < 0 ? -1 : resumed - downAt;
        }
    }
}
