package ipoib.itest;

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
 * Debian's OpenSM under libumad2sim against a fabric that serves ibsim's protocol on abstract
 * sockets {@code @NAME:ctl}, with the project's shims preloaded as {@code ./ipoib --opensm}
 * preloads them (compiled here with gcc); and infiniband-diags tools run the same way. Everything
 * runs in a directory of its own, removed at {@link #close()} with the processes.
 */
final class OpenSmProcess implements AutoCloseable {
    private static final long TIMEOUT_MILLIS = 30_000;

    private final Path dir;
    private final String sockName;
    private final String preload;
    private final Process openSm;

    private OpenSmProcess(Path dir, String sockName, String preload, Process openSm) {
        this.dir = dir;
        this.sockName = sockName;
        this.preload = preload;
        this.openSm = openSm;
    }

    static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(dir.resolve("examples"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    static String umad2sim() throws IOException {
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib"))) {
            return Stream.concat(Stream.of(Path.of("/usr/lib")), dirs.filter(Files::isDirectory))
                    .map(d -> d.resolve("umad2sim/libumad2sim.so")).filter(Files::isRegularFile).findFirst()
                    .map(Path::toString).orElseThrow(() -> new AssertionError(
                            "libumad2sim.so is missing: install the Debian package libumad2sim0"));
        }
    }

    /** OpenSM attached to {@code @sockName:ctl} with {@code partitions}, until SUBNET UP. */
    static OpenSmProcess start(String sockName, String partitions) throws Exception {
        return start(sockName, partitions, "", "", "SUBNET UP");
    }

    /**
     * OpenSM attached to {@code @sockName:ctl} at {@code node} (umad2sim's SIM_HOST; empty: the
     * server's default node) with {@code partitions}, the opensm.conf lines {@code config} (empty:
     * none) and the command-line {@code options}, until its log has {@code awaited} (SUBNET UP, or
     * "Entering STANDBY state" for an SM that finds a master of a higher priority).
     */
    static OpenSmProcess start(String sockName, String partitions, String node, String config, String awaited,
                               String... options) throws Exception {
        Path dir = Files.createTempDirectory("ipoib-opensm-it");
        Process process;
        String preload;
        try {
            preload = shimPreload();
            Path conf = Files.writeString(dir.resolve("partitions.conf"), partitions);
            Path log = dir.resolve("opensm.log");
            List<String> command = new ArrayList<>(List.of("opensm", "-f", log.toString(), "-P", conf.toString(), "-d2"));
            if (!config.isEmpty()) {
                command.addAll(List.of("-F", Files.writeString(dir.resolve("opensm.conf"), config).toString()));
            }
            command.addAll(List.of(options));
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("opensm.out").toFile());
            pb.environment().putAll(Map.of("IBSIM_SOCKNAME", sockName, "OSM_TMP_DIR", dir.toString(), "OSM_CACHE_DIR",
                    dir.toString(), "LD_PRELOAD", preload));
            if (!node.isEmpty()) {
                pb.environment().put("SIM_HOST", node);
            }
            process = pb.start();
        } catch (Exception | Error e) {
            deleteTree(dir);
            throw e;
        }
        OpenSmProcess p = new OpenSmProcess(dir, sockName, preload, process);
        try {
            p.awaitLog(awaited);
            return p;
        } catch (Throwable t) {
            p.close();
            throw t;
        }
    }

    /** The shims, compiled once for every OpenSM and tool of the test JVM (gcc takes longer than OpenSM's start). */
    private static String shims;

    /**
     * What {@code LD_PRELOAD} holds for OpenSM and the tools; the shims compiled at the first call into a
     * directory removed when the JVM ends, the three gcc runs at once.
     */
    private static synchronized String shimPreload() throws Exception {
        if (shims == null) {
            Path dir = Files.createTempDirectory("ipoib-opensm-shims");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "opensm-shims-remove"));
            Path sources = repository().resolve("ipoib.verbs.fabric/src/test/c");
            Compilation rmpp = Compilation.start(dir, sources, "umad_rmpp_shim.c", "rmpp.so");
            Compilation full = Compilation.start(dir, sources, "umad2sim_full_mad.c", "full.so");
            Compilation socket = Compilation.start(dir, sources, "umad2sim_full_mad.c", "full_socket.so", "-DSOCKET_SIDE");
            // The tools preload the RMPP shim as ./ipoib diag does (saquery's long tables).
            shims = rmpp.await() + ":" + full.await() + ":" + umad2sim() + ":" + socket.await();
        }
        return shims;
    }

    /** One gcc run building a shim. */
    private record Compilation(Process gcc, String file, Path library) {
        static Compilation start(Path dir, Path shims, String file, String library, String... options)
                throws IOException {
            Path so = dir.resolve(library);
            List<String> command = new ArrayList<>(List.of("gcc", "-Wall", "-shared", "-fPIC"));
            command.addAll(List.of(options));
            command.addAll(List.of("-o", so.toString(), shims.resolve(file).toString(), "-ldl", "-lpthread"));
            return new Compilation(new ProcessBuilder(command).redirectErrorStream(true).start(), file, so);
        }

        Path await() throws Exception {
            String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
                throw new AssertionError("gcc could not build " + file + " (needs gcc and libibumad-dev):\n" + out);
            }
            return library;
        }
    }

    String log() throws IOException {
        return Files.readString(dir.resolve("opensm.log"), StandardCharsets.ISO_8859_1);
    }

    void awaitLog(String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(dir.resolve("opensm.log")) && log().contains(text)) {
                return;
            }
            if (!openSm.isAlive()) {
                break;
            }
            try {
                openSm.onExit().get(20, TimeUnit.MILLISECONDS); // a pause that ends early if OpenSM dies
            } catch (java.util.concurrent.TimeoutException stillRunning) {
                // poll again
            }
        }
        throw new AssertionError("OpenSM did not log '" + text + "' within " + TIMEOUT_MILLIS + " ms (alive: "
                + openSm.isAlive() + "):\n" + (Files.exists(dir.resolve("opensm.log")) ? log() : "(no log)"));
    }

    /** An infiniband-diags tool under libumad2sim, as {@code ./ipoib diag} runs it; its standard output. */
    String tool(String... command) throws Exception {
        return toolAt("", command);
    }

    /** {@link #tool} attached at a node of the topology (umad2sim's SIM_HOST), or at the default one when empty. */
    String toolAt(String node, String... command) throws Exception {
        Path out = Files.createTempFile(dir, "tool", ".out");
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(Map.of("IBSIM_SOCKNAME", sockName, "LD_PRELOAD", preload));
        if (!node.isEmpty()) {
            pb.environment().put("SIM_HOST", node);
        }
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end");
        }
        return Files.readString(out, StandardCharsets.ISO_8859_1);
    }

    /** Kills OpenSM (SIGKILL: no hand-over, as a crashed SM) and waits for it to end; {@link #close} removes its files. */
    void kill() throws InterruptedException {
        openSm.destroyForcibly();
        if (!openSm.waitFor(5, TimeUnit.SECONDS)) {
            throw new AssertionError("OpenSM " + openSm.pid() + " did not end after SIGKILL");
        }
    }

    @Override
    public void close() {
        openSm.destroy();
        try {
            if (!openSm.waitFor(5, TimeUnit.SECONDS)) {
                openSm.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            openSm.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }
}
