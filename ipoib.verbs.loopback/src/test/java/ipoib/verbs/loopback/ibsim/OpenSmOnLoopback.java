package ipoib.verbs.loopback.ibsim;

import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A loopback subnet with sm=external, the ibsim protocol server on its management plane, and
 * Debian's OpenSM under libumad2sim managing it, with the project's shims preloaded as
 * {@code ./ipoib --opensm} preloads them; infiniband-diags tools run against it the same way.
 */
final class OpenSmOnLoopback implements AutoCloseable {
    private static final long TIMEOUT_MILLIS = 30_000;

    final LoopbackSubnet subnet;
    final SimulatorServer server;
    final String sockName;
    final List<String> serverLog = new CopyOnWriteArrayList<>();
    private final Path dir;
    private final Shims shims;
    private final List<Process> processes = new ArrayList<>();
    private Sm openSm;

    private OpenSmOnLoopback(Path dir, LoopbackSubnet subnet) throws Exception {
        this.dir = dir;
        this.subnet = subnet;
        this.sockName = "ipoib-opensm-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        this.shims = Shims.compile(dir);
        this.server = SimulatorServer.local(sockName, subnet.managementPlane(), serverLog::add, serverLog::add);
    }

    /** The net file's subnet, sm=external, with OpenSM attached until SUBNET UP. */
    static OpenSmOnLoopback start(Path dir, Path netFile, String partitions) throws Exception {
        return start(dir, netFile, partitions, LoopbackSubnet.UNTRUSTED_SM_KEY, List.of());
    }

    /**
     * The net file's subnet, sm=external, with OpenSM attached until SUBNET UP: the ports' SA
     * clients send {@code smKey}, OpenSM runs with {@code openSmOptions} besides its log, the
     * partitions and the debug level ({@code -l 1} for LMC 1, ...).
     */
    static OpenSmOnLoopback start(Path dir, Path netFile, String partitions, long smKey, List<String> openSmOptions)
            throws Exception {
        RealIbsim.requirePrograms();
        FabricConfig config = new FabricConfig(1, 1, 0xfe80_0000_0000_0000L, 0x0002_c903_0000_0000L,
                ipoib.api.IbMtu.MTU_2048, ipoib.api.Rate.fromCode(3), List.of(ipoib.verbs.loopback.fabric.PartitionConfig.parse(
                "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;")), 1, 0,
                netFile.toString());
        LoopbackSubnet subnet = new LoopbackSubnet(config, 200, 5, smKey, true, true);
        OpenSmOnLoopback f;
        try {
            f = new OpenSmOnLoopback(dir, subnet);
        } catch (Throwable t) {
            subnet.close();
            throw t;
        }
        try {
            f.startOpenSm(partitions, openSmOptions);
            return f;
        } catch (Throwable t) {
            f.close();
            throw t;
        }
    }

    Path openSmLog() {
        return openSm.log;
    }

    /** One OpenSM process attached to the server, with its files in a directory of its own. */
    final class Sm {
        final Process process;
        final Path log;

        private Sm(Process process, Path log) {
            this.process = process;
            this.log = log;
        }

        /** Waits until this OpenSM's log has {@code text}; fails with the log's tail and the server's lines. */
        void awaitLog(String text) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
            while (System.nanoTime() < deadline) {
                if (Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text)) {
                    return;
                }
                if (!process.isAlive()) {
                    break;
                }
                try {
                    process.onExit().get(20, TimeUnit.MILLISECONDS); // a pause that ends early if OpenSM dies
                } catch (java.util.concurrent.TimeoutException stillRunning) {
                    // poll again
                }
            }
            throw new AssertionError("OpenSM did not log '" + text + "' within " + TIMEOUT_MILLIS + " ms (alive: "
                    + process.isAlive() + ")\n" + tail(log) + "\n" + tail(log.resolveSibling("opensm.out"))
                    + "\nserver: " + serverLog);
        }

        /** SIGKILL, as an SM that crashes (no hand-over); waits until it ended. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                throw new AssertionError("OpenSM " + process.pid() + " did not end after SIGKILL");
            }
        }
    }

    private void startOpenSm(String partitions, List<String> options) throws Exception {
        openSm = startOpenSm("opensm", "", partitions, "", "SUBNET UP", options);
    }

    /**
     * Another OpenSM, in {@code dir/NAME}, attached at {@code node} (umad2sim's SIM_HOST; empty:
     * the server's default node) with {@code partitions}, the opensm.conf lines {@code config}
     * (empty: none) and {@code options}, until its log has {@code awaited} ("SUBNET UP", or
     * "Entering STANDBY state" beside a master of a higher priority). {@link #close} stops it.
     */
    Sm startOpenSm(String name, String node, String partitions, String config, String awaited, List<String> options)
            throws Exception {
        Path osm = Files.createDirectories(dir.resolve(name));
        Path conf = Files.writeString(osm.resolve("partitions.conf"), partitions);
        Path log = osm.resolve("opensm.log");
        List<String> command = new ArrayList<>(List.of("opensm", "-f", log.toString(), "-P", conf.toString(), "-d2"));
        if (!config.isEmpty()) {
            command.addAll(List.of("-F", Files.writeString(osm.resolve("opensm.conf"), config).toString()));
        }
        command.addAll(options);
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(osm.toFile()).redirectErrorStream(true).redirectOutput(osm.resolve("opensm.out").toFile());
        pb.environment().putAll(Map.of("IBSIM_SOCKNAME", sockName, "OSM_TMP_DIR", osm.toString(), "OSM_CACHE_DIR",
                osm.toString(), "LD_PRELOAD", shims.withRmpp()));
        if (!node.isEmpty()) {
            pb.environment().put("SIM_HOST", node);
        }
        Sm sm = new Sm(pb.start(), log);
        processes.add(sm.process);
        sm.awaitLog(awaited);
        return sm;
    }

    /** Waits until the first OpenSM's log has {@code text}; fails with the log's tail and the server's lines. */
    void awaitLog(String text) throws Exception {
        openSm.awaitLog(text);
    }

    /** The first OpenSM. */
    Sm openSm() {
        return openSm;
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ")";
        }
    }

    /** An infiniband-diags tool under umad2sim against the server, as {@code ./ipoib diag} runs it. */
    String tool(String... command) throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("IBSIM_SOCKNAME", sockName);
        return RealIbsim.toolWith(shims.withRmpp(), dir, env, command);
    }

    @Override
    public void close() {
        for (Process p : processes.reversed()) {
            p.destroy();
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        server.close();
        subnet.close();
    }
}
