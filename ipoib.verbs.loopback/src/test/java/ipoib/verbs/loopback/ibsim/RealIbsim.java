package ipoib.verbs.loopback.ibsim;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code ibsim} (package ibsim-utils) with OpenSM (package opensm) managing it under
 * {@code libumad2sim} (package libumad2sim0): the independent oracle of what an ibsim client
 * is answered, and the runner of real client tools under umad2sim against any server.
 */
final class RealIbsim implements AutoCloseable {
    static final String UMAD2SIM = findUmad2sim();
    private static final long TIMEOUT_MILLIS = 20_000;

    private final Path dir;
    private final String sockName;
    private final List<Process> processes = new ArrayList<>();

    private RealIbsim(Path dir, String sockName) {
        this.dir = dir;
        this.sockName = sockName;
    }

    private static String findUmad2sim() {
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib"))) {
            return Stream.concat(Stream.of(Path.of("/usr/lib")), dirs.filter(Files::isDirectory))
                    .map(d -> d.resolve("umad2sim/libumad2sim.so")).filter(Files::isRegularFile).findFirst()
                    .map(Path::toString).orElse("/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so");
        } catch (IOException e) {
            return "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
        }
    }

    static void requirePrograms() {
        require("ibsim", "ibsim-utils");
        require("opensm", "opensm");
        require("ibstat", "infiniband-diags");
        if (!Files.isRegularFile(Path.of(UMAD2SIM))) {
            fail(UMAD2SIM + " is missing: install the Debian package libumad2sim0 (./ipoib test's set-up does)");
        }
    }

    private static void require(String program, String debianPackage) {
        boolean found = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"), new String[] {"/usr/sbin", "/sbin"})
                .flatMap(Stream::of).anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, program)));
        if (!found) {
            fail(program + " is not installed: install the Debian package " + debianPackage
                    + " (./ipoib test's set-up installs it)");
        }
    }

    /** ibsim on {@code netFile} with OpenSM attached until SUBNET UP. */
    static RealIbsim startManaged(Path dir, String netFile) throws Exception {
        return startManaged(dir, netFile, UMAD2SIM);
    }

    /** ibsim on {@code netFile} with OpenSM, which preloads {@code openSmPreload} (libumad2sim and shims), attached until SUBNET UP. */
    static RealIbsim startManaged(Path dir, String netFile, String openSmPreload) throws Exception {
        requirePrograms();
        String sock = "ipoib-oracle-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        RealIbsim r = new RealIbsim(dir, sock);
        try {
            Path net = Files.writeString(dir.resolve("net"), netFile);
            Path log = dir.resolve("ibsim.log");
            ProcessBuilder ibsim = new ProcessBuilder("ibsim", "-s", "-n", net.toString()).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            ibsim.environment().put("IBSIM_SOCKNAME", sock);
            r.processes.add(ibsim.start());
            r.awaitLine(log, "Network simulator ready");
            Path osm = Files.createDirectories(dir.resolve("opensm"));
            ProcessBuilder opensm = new ProcessBuilder("opensm", "-f", osm.resolve("opensm.log").toString(), "-d2",
                    "-s", "0").directory(osm.toFile()).redirectErrorStream(true)
                    .redirectOutput(osm.resolve("opensm.out").toFile());
            opensm.environment().putAll(Map.of("IBSIM_SOCKNAME", sock, "LD_PRELOAD", openSmPreload, "OSM_TMP_DIR",
                    osm.toString(), "OSM_CACHE_DIR", osm.toString()));
            r.processes.add(opensm.start());
            r.awaitLine(osm.resolve("opensm.log"), "SUBNET UP");
            return r;
        } catch (Throwable t) {
            r.close();
            throw t;
        }
    }

    String sockName() {
        return sockName;
    }

    private void awaitLine(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text)) {
                return;
            }
            Process newest = processes.get(processes.size() - 1);
            if (!newest.isAlive()) {
                throw new IllegalStateException(newest.info().command().orElse("?") + " exited before '" + text + "'");
            }
            try {
                newest.onExit().get(20, TimeUnit.MILLISECONDS); // a pause that ends early if it dies
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // poll again
            }
        }
        throw new IllegalStateException("no '" + text + "' in " + log + " within " + TIMEOUT_MILLIS + " ms");
    }

    /**
     * Runs an infiniband-diags tool under umad2sim in {@code dir} with {@code environment}
     * (the server's address, SIM_HOST) and returns its standard output; fails on a non-zero exit.
     */
    static String tool(Path dir, Map<String, String> environment, String... command) throws Exception {
        return toolWith(UMAD2SIM, dir, environment, command);
    }

    /** {@link #tool(Path, Map, String...)} with {@code preload} as LD_PRELOAD (libumad2sim and the shims). */
    static String toolWith(String preload, Path dir, Map<String, String> environment, String... command)
            throws Exception {
        Path out = Files.createTempFile(dir, "tool", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("tools.err").toFile()));
        pb.environment().putAll(environment);
        pb.environment().put("LD_PRELOAD", preload);
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " did not end within " + TIMEOUT_MILLIS + " ms");
        }
        String text = Files.readString(out, StandardCharsets.ISO_8859_1);
        if (p.exitValue() != 0) {
            fail(String.join(" ", command) + " exited with " + p.exitValue() + ":\n" + text + "\n"
                    + Files.readString(dir.resolve("tools.err"), StandardCharsets.ISO_8859_1));
        }
        return text;
    }

    @Override
    public void close() {
        for (Process p : processes.reversed()) {
            p.destroy();
            try {
                if (!p.waitFor(3, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
