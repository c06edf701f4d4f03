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
                              long saTimeoutMillis, int saAttempts) throws Exception {
        requireProgram("ibsim", "ibsim-utils");
        requireProgram("opensm", "opensm");
        if (!Files.isRegularFile(Path.of(UMAD2SIM))) {
            fail(UMAD2SIM + " is missing: install the Debian package libumad2sim0 (CI's .ci/run does)");
        }
        OpenSmFabric f = new OpenSmFabric(workDir);
        try {
            f.startSubnet();
            for (String h : hostNames) {
                Path dir = Files.createDirectories(workDir.resolve(h));
                f.hosts.put(h, RemoteSaHost.fork(h, dir, f.env, workDir.resolve(h + ".log"), saTimeoutMillis,
                        saAttempts, reportReceivers.contains(h)));
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

    private void startSubnet() throws Exception {
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

        env.put("LD_PRELOAD", UMAD2SIM);
        Path osmDir = Files.createDirectories(workDir.resolve("opensm"));
        osmLog = osmDir.resolve("opensm.log");
        // -d2 flushes the log per line (we wait for SUBNET UP in it); -s 0: no periodic sweeps.
        ProcessBuilder opensm = new ProcessBuilder("opensm", "-e", "-f", osmLog.toString(), "-P",
                partitions.toString(), "-l", Integer.toString(ipoib.satest.SubnetAdministratorContract.LMC), "-d2",
                "-s", "0").directory(osmDir.toFile()).redirectErrorStream(true)
                .redirectOutput(osmDir.resolve("opensm.out").toFile());
        opensm.environment().putAll(env);
        opensm.environment().put("OSM_TMP_DIR", osmDir.toString());
        opensm.environment().put("OSM_CACHE_DIR", osmDir.toString());
        processes.add(opensm.start());
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
