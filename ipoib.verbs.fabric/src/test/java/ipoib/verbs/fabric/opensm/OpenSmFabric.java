package ipoib.verbs.fabric.opensm;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real subnet for tests: {@code ibsim} simulating one switch and four HCAs, OpenSM on the
 * switch's management port under {@code libumad2sim}, and one forked JVM per HCA running the
 * hardware provider's {@code UmadTransport} with the shared SA client ({@link RemoteSaHost}).
 *
 * <p>Two test fixtures in {@code src/test/c}, compiled here with gcc, stand in for what ibsim
 * lacks. OpenSM preloads {@code umad_rmpp_shim.c}: the RMPP sending that the kernel's MAD
 * layer does for OpenSM on a real HCA (segments, window, ACKs, retransmission), so that long
 * SA answers reach the clients as RMPP segments. Every process preloads
 * {@code umad2sim_full_mad.c} around libumad2sim, whose receive path delivers only 224 of a
 * MAD's 256 octets; it supplies the missing 32.
 * Every process runs in its own directory under {@code workDir} (umad2sim creates
 * {@code ./sys-<pid>} there) and is stopped, with its children, by {@link #close()}.
 */
final class OpenSmFabric implements AutoCloseable {
    /** libumad2sim0 installs it under the multiarch directory (x86_64-linux-gnu, aarch64-linux-gnu, ...). */
    static final String UMAD2SIM = findUmad2sim();
    /** The simulated HCAs, one port each, all on switch "sw" ports 1..4. */
    static final List<String> HCAS = List.of("H1", "H2", "H3", "H4");
    private static final long START_TIMEOUT_MILLIS = 20_000;

    private static String findUmad2sim() {
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib"))) {
            return Stream.concat(Stream.of(Path.of("/usr/lib")), dirs.filter(Files::isDirectory))
                    .map(d -> d.resolve("umad2sim/libumad2sim.so")).filter(Files::isRegularFile).findFirst()
                    .map(Path::toString).orElse("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so");
        } catch (IOException e) {
            return "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
        }
    }

    private final Path workDir;
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final Map<String, RemoteSaHost> hosts = new LinkedHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private Path osmLog;
    private Process openSm;

    /** Stops the processes if the test JVM exits without {@link #close()} (a killed fork). */
    private final Thread exitHook = new Thread(() -> processes.forEach(OpenSmFabric::stop), "opensm-fabric-exit");

    private OpenSmFabric(Path workDir) {
        this.workDir = workDir;
        Runtime.getRuntime().addShutdownHook(exitHook);
    }

    /**
     * Starts ibsim, OpenSM (until SUBNET UP) and the hosts (until each has opened its port).
     * Fails the test, naming what to install, when a program is missing.
     */
    static OpenSmFabric start(Path workDir, List<String> hostNames, java.util.Set<String> reportReceivers,
                              long saTimeoutMillis, int saAttempts, Map<String, Integer> rmppWindows) throws Exception {
        requireProgram("ibsim", "ibsim-utils");
        requireProgram("opensm", "opensm");
        if (!Files.isRegularFile(Path.of(UMAD2SIM))) {
            fail(UMAD2SIM + " is missing: install the Debian package libumad2sim0 (CI's .ci/run does)");
        }
        Path shim = compile(workDir, "umad_rmpp_shim.c", "umad_rmpp_shim.so");
        String preload = compile(workDir, "umad2sim_full_mad.c", "umad2sim_full_mad.so") + ":" + UMAD2SIM + ":"
                + compile(workDir, "umad2sim_full_mad.c", "umad2sim_full_mad_socket.so", "-DSOCKET_SIDE");
        OpenSmFabric f = new OpenSmFabric(workDir);
        try {
            f.startSubnet(shim, preload);
            for (String h : hostNames) {
                Path dir = Files.createDirectories(workDir.resolve(h));
                f.hosts.put(h, RemoteSaHost.fork(h, dir, f.env, workDir.resolve(h + ".log"), saTimeoutMillis,
                        saAttempts, reportReceivers.contains(h), rmppWindows.getOrDefault(h, 0)));
                f.processes.add(f.hosts.get(h).process());
            }
            for (RemoteSaHost h : f.hosts.values()) {
                try {
                    h.awaitReady(START_TIMEOUT_MILLIS);
                } catch (Exception e) {
                    throw new IllegalStateException("host " + h.name() + " did not open its port: " + e
                            + "\n" + tail(workDir.resolve(h.name() + ".log")), e);
                }
            }
            return f;
        } catch (Throwable t) {
            f.close();
            throw t;
        }
    }

    private static void requireProgram(String program, String debianPackage) {
        boolean found = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"), new String[] {"/usr/sbin", "/sbin"})
                .flatMap(Stream::of).anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, program)));
        if (!found) {
            fail(program + " is not installed: install the Debian package " + debianPackage
                    + " (CI's .ci/run installs ibsim-utils, opensm and libumad2sim0)");
        }
    }

    /** Compiles a fixture of src/test/c into a preloadable library (gcc, libibumad-dev: the test packages). */
    private static Path compile(Path workDir, String file, String library, String... options) throws Exception {
        Path source = Path.of("src/test/c", file).toAbsolutePath();
        Path so = workDir.resolve(library);
        List<String> command = new java.util.ArrayList<>(List.of("gcc", "-Wall", "-Wextra", "-shared", "-fPIC"));
        command.addAll(List.of(options));
        command.addAll(List.of("-o", so.toString(), source.toString(), "-ldl", "-lpthread"));
        Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            fail("gcc could not build " + source + " (needs gcc and libibumad-dev):\n" + out);
        }
        return so;
    }

    private void startSubnet(Path rmppShim, String preload) throws Exception {
        StringBuilder net = new StringBuilder("Switch\t8 \"sw\"\n");
        for (int i = 0; i < HCAS.size(); i++) {
            net.append('[').append(i + 1).append("]\t\"").append(HCAS.get(i)).append("\"[1]\n");
        }
        for (int i = 0; i < HCAS.size(); i++) {
            net.append("\nHca\t1 \"").append(HCAS.get(i)).append("\"\n[1]\t\"sw\"[").append(i + 1).append("]\n");
        }
        Path netFile = Files.writeString(workDir.resolve("net"), net);
        Path partitions = Files.write(workDir.resolve("partitions.conf"),
                ipoib.satest.SubnetAdministratorContract.PARTITIONS);
        // A socket name of our own: several test runs (and other users of ibsim) can share the machine.
        env.put("IBSIM_SOCKNAME", "ipoib-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Path ibsimLog = workDir.resolve("ibsim.log");
        ProcessBuilder ibsim = new ProcessBuilder("ibsim", "-s", "-n", netFile.toString())
                .directory(workDir.toFile()).redirectErrorStream(true).redirectOutput(ibsimLog.toFile());
        ibsim.environment().putAll(env);
        processes.add(ibsim.start());
        awaitLine(ibsimLog, "Network simulator ready", "ibsim");

        env.put("LD_PRELOAD", preload);
        Path osmDir = Files.createDirectories(workDir.resolve("opensm"));
        osmLog = osmDir.resolve("opensm.log");
        // -d2 flushes the log per line (we wait for SUBNET UP in it); -s 0: no periodic sweeps.
        ProcessBuilder opensm = new ProcessBuilder("opensm", "-e", "-f", osmLog.toString(), "-P",
                partitions.toString(), "-l", Integer.toString(ipoib.satest.SubnetAdministratorContract.LMC), "-d2",
                "-s", "0").directory(osmDir.toFile()).redirectErrorStream(true)
                .redirectOutput(osmDir.resolve("opensm.out").toFile());
        opensm.environment().putAll(env);
        // The RMPP shim first: its umad_register/umad_send/umad_recv wrap libibumad's, whose
        // write and read libumad2sim then turns into simulator packets.
        opensm.environment().put("LD_PRELOAD", rmppShim + ":" + preload);
        opensm.environment().put("OSM_TMP_DIR", osmDir.toString());
        opensm.environment().put("OSM_CACHE_DIR", osmDir.toString());
        openSm = opensm.start();
        processes.add(openSm);
        awaitLine(osmLog, "SUBNET UP", "opensm");
    }

    private void awaitLine(Path log, String text, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text)) {
                return;
            }
            for (Process p : processes) {
                if (!p.isAlive()) {
                    throw new IllegalStateException(what + " exited with " + p.exitValue() + " before '" + text
                            + "':\n" + tail(log));
                }
            }
            // Poll the log file; onExit() of the newest process ends the wait early on a crash.
            try {
                processes.get(processes.size() - 1).onExit().get(20, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // poll again
            }
        }
        throw new IllegalStateException(what + " did not log '" + text + "' within " + START_TIMEOUT_MILLIS
                + " ms:\n" + tail(log));
    }

    static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no " + log + ")";
        }
    }

    List<RemoteSaHost> hosts() {
        return List.copyOf(hosts.values());
    }

    /** What OpenSM wrote to stdout and stderr so far (the RMPP shim's lines among it). */
    List<String> openSmOutput() throws IOException {
        return Files.readAllLines(osmLog.resolveSibling("opensm.out"), StandardCharsets.ISO_8859_1);
    }

    /**
     * The lines OpenSM writes after its first {@code skip} lines that match, once there is one
     * (empty after {@link #START_TIMEOUT_MILLIS}): the shim writes a transfer's line when OpenSM's
     * receive thread takes the final ACK, which may be after the client has the answer.
     */
    List<String> awaitOpenSmOutput(int skip, java.util.function.Predicate<String> match) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        while (true) {
            List<String> all = openSmOutput();
            List<String> found = all.subList(Math.min(skip, all.size()), all.size()).stream()
                    .filter(match).toList();
            if (!found.isEmpty() || System.nanoTime() > deadline) {
                return found;
            }
            try {
                openSm.onExit().get(20, TimeUnit.MILLISECONDS); // a pause that ends early if OpenSM dies
                return found;
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // poll again
            }
        }
    }

    /** OpenSM's log so far. */
    String openSmLog() throws IOException {
        return Files.readString(osmLog, StandardCharsets.ISO_8859_1);
    }

    /** Stops the hosts (asking first), OpenSM and ibsim, with their children; deletes umad2sim's sys-* dirs. */
    @Override
    public void close() {
        for (RemoteSaHost h : hosts.values()) {
            h.close();
        }
        for (Process p : processes.reversed()) {
            stop(p);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException exiting) {
            // The JVM is already exiting: the hook runs, and finds the processes gone.
        }
        try (Stream<Path> files = Files.walk(workDir)) {
            files.filter(p -> p.getFileName().toString().startsWith("sys-")).sorted(Comparator.reverseOrder())
                    .forEach(OpenSmFabric::deleteTree);
        } catch (IOException e) {
            // The temporary directory is removed by JUnit anyway.
        }
    }

    private static void stop(Process p) {
        List<ProcessHandle> children = p.descendants().toList();
        p.destroy();
        try {
            if (!p.waitFor(3, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }
}
