package ipoib.verbs.loopback.ibsim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.verbs.loopback.agent.SubnetManagementPlane;
import ipoib.verbs.loopback.subnet.NetFile;
import ipoib.verbs.loopback.subnet.Topology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ibsim is the oracle of the management plane: the same net file given to Debian's ibsim and to
 * the subnet model's agents (behind the protocol server), each managed by an unmodified OpenSM
 * under plain libumad2sim, gives the same ibnetdiscover, saquery, ibroute and perfquery output,
 * also after a link between the switches goes down and OpenSM re-sweeps on its trap 128.
 */
class SubnetOracleTest {
    private static final long TIMEOUT_MILLIS = 30_000;

    /** OpenSM on the subnet model's plane, as RealIbsim runs it on ibsim. */
    private static final class PlaneUnderOpenSm implements AutoCloseable {
        final Topology topology;
        final String sock = "ipoib-plane-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final SimulatorServer server;
        final Process openSm;
        final Path log;

        PlaneUnderOpenSm(Path dir, String net) throws Exception {
            this(dir, net, RealIbsim.UMAD2SIM);
        }

        PlaneUnderOpenSm(Path dir, String net, String openSmPreload) throws Exception {
            topology = NetFile.parse("net", net);
            server = SimulatorServer.local(sock, new SubnetManagementPlane(topology), m -> { }, m -> { });
            Path osm = Files.createDirectories(dir.resolve("opensm-plane"));
            log = osm.resolve("opensm.log");
            ProcessBuilder pb = new ProcessBuilder("opensm", "-f", log.toString(), "-d2", "-s", "0")
                    .directory(osm.toFile()).redirectErrorStream(true).redirectOutput(osm.resolve("opensm.out").toFile());
            pb.environment().putAll(Map.of("IBSIM_SOCKNAME", sock, "LD_PRELOAD", openSmPreload, "OSM_TMP_DIR",
                    osm.toString(), "OSM_CACHE_DIR", osm.toString()));
            openSm = pb.start();
            awaitCount(log, "SUBNET UP", 1);
        }

        void awaitCount(Path file, String text, int count) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
            while (System.nanoTime() < deadline) {
                if (occurrences(file, text) >= count) {
                    return;
                }
                if (!openSm.isAlive()) {
                    throw new IllegalStateException("opensm exited before '" + text + "': " + Files.readString(file));
                }
                try {
                    openSm.onExit().get(20, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException stillRunning) {
                    // poll again
                }
            }
            throw new IllegalStateException("no " + count + " '" + text + "' in " + file);
        }

        @Override
        public void close() throws Exception {
            openSm.destroy();
            if (!openSm.waitFor(5, TimeUnit.SECONDS)) {
                openSm.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            server.close();
        }
    }

    static int occurrences(Path file, String text) throws Exception {
        if (!Files.exists(file)) {
            return 0;
        }
        String s = Files.readString(file, StandardCharsets.ISO_8859_1);
        int n = 0;
        for (int i = s.indexOf(text); i >= 0; i = s.indexOf(text, i + 1)) {
            n++;
        }
        return n;
    }

    /** The tool's output without comment lines (ibnetdiscover's carry the date and the tool's invocation). */
    static String run(Path dir, String sock, String... command) throws Exception {
        return runWith(RealIbsim.UMAD2SIM, dir, sock, command);
    }

    /** {@link #run} with {@code preload} as the tool's LD_PRELOAD. */
    static String runWith(String preload, Path dir, String sock, String... command) throws Exception {
        String out = RealIbsim.toolWith(preload, dir, Map.of("IBSIM_SOCKNAME", sock), command);
        List<String> kept = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.startsWith("#")) {
                kept.add(line);
            }
        }
        return String.join("\n", kept);
    }

    private static void assertSameOutput(Path dir, RealIbsim ibsim, PlaneUnderOpenSm plane, String... command)
            throws Exception {
        assertEquals(run(dir, ibsim.sockName(), command), run(dir, plane.sock, command), String.join(" ", command));
    }

    @Test
    void ibsimsTwoSwitchExampleLooksTheSameToTheTools(@TempDir Path dir) throws Exception {
        String net = Files.readString(Path.of("../examples/two-switches.net"));
        try (RealIbsim ibsim = RealIbsim.startManaged(Files.createDirectories(dir.resolve("ibsim")), net);
                PlaneUnderOpenSm plane = new PlaneUnderOpenSm(dir, net)) {
            // The counters compared below count from here: what OpenSM sent before SUBNET UP depends on
            // timing (a MAD that times out under load makes it sweep again), what the tools send does not.
            for (String sock : List.of(ibsim.sockName(), plane.sock)) {
                run(dir, sock, "perfquery", "-R", "1", "7");
                run(dir, sock, "perfquery", "-R", "4", "1");
            }
            assertSameOutput(dir, ibsim, plane, "ibnetdiscover");
            assertSameOutput(dir, ibsim, plane, "saquery");
            assertSameOutput(dir, ibsim, plane, "ibroute", "1");
            assertSameOutput(dir, ibsim, plane, "ibroute", "3");
            assertSameOutput(dir, ibsim, plane, "ibtracert", "4", "6");
            assertSameOutput(dir, ibsim, plane, "sminfo");
            // The tools' MADs cross the links the same way: PortXmitData, PortRcvData and the packet counts agree.
            assertSameOutput(dir, ibsim, plane, "perfquery", "1", "7");
            assertSameOutput(dir, ibsim, plane, "perfquery", "4", "1");
        }
    }

    /**
     * With the RMPP shim in OpenSM (the kernel's sender) and in the tools (the kernel's receiver),
     * saquery's tables arrive whole on both, longer than one MAD: every node of the net file, and
     * a PathRecord for every pair of LIDs (the eight switch port 0s and HCA ports, LMC 0). Without
     * the receiver both list the records of the first segment only.
     */
    @Test
    void theFatTreeLooksTheSameToTheTools(@TempDir Path dir) throws Exception {
        String net = Files.readString(Path.of("../examples/fat-tree.net"));
        Shims shims = Shims.compile(dir);
        try (RealIbsim ibsim = RealIbsim.startManaged(Files.createDirectories(dir.resolve("ibsim")), net,
                shims.withRmpp()); PlaneUnderOpenSm plane = new PlaneUnderOpenSm(dir, net, shims.withRmpp())) {
            assertSameOutput(dir, ibsim, plane, "ibnetdiscover");
            for (String[] table : new String[][] {{"saquery"}, {"saquery", "-p"}}) {
                String onIbsim = runWith(shims.withRmpp(), dir, ibsim.sockName(), table);
                assertEquals(onIbsim, runWith(shims.withRmpp(), dir, plane.sock, table), String.join(" ", table));
            }
            String nodes = runWith(shims.withRmpp(), dir, plane.sock, "saquery");
            List<String> descriptions = nodes.lines().filter(l -> l.contains("NodeDescription")).map(
                    l -> l.replaceAll(".*\\.\\.+", "").strip()).sorted().toList();
            assertEquals(List.of("hca0", "hca1", "hca2", "hca3", "leaf1", "leaf2", "spine1", "spine2"), descriptions,
                    nodes);
            long paths = runWith(shims.withRmpp(), dir, plane.sock, "saquery", "-p").lines()
                    .filter(l -> l.startsWith("PathRecord dump:")).count();
            assertEquals(8 * 8, paths, "a PathRecord from each of the 8 LIDs to each");
        }
    }

    @Test
    void aLinkGoingDownIsReroutedAsOnIbsim(@TempDir Path dir) throws Exception {
        String net = Files.readString(Path.of("../examples/two-switches.net"));
        PlaneUnderOpenSm plane = new PlaneUnderOpenSm(dir, net);
        try (plane) {
            String before = run(dir, plane.sock, "ibroute", "1");
            plane.topology.lock().lock();
            try {
                plane.topology.setLinkUp(plane.topology.node("sw1").port(7), false);
            } finally {
                plane.topology.lock().unlock();
            }
            plane.awaitCount(plane.log, "num:128 (Link state change)", 1);
            plane.awaitCount(plane.log, "SUBNET UP", 2);
            String after = run(dir, plane.sock, "ibroute", "1");
            assertTrue(before.lines().anyMatch(l -> l.matches("0x[0-9a-f]{4} 007 .*")), before);
            assertTrue(after.lines().noneMatch(l -> l.matches("0x[0-9a-f]{4} 007 .*")),
                    "no route leaves sw1 through its port 7 any more:\n" + after);
            assertEquals(10, run(dir, plane.sock, "ibnetdiscover").lines().filter(l -> l.startsWith("[")).count(),
                    "12 cabled ports less the two ends of sw1[7] - sw2[7]");
        }
    }
}
