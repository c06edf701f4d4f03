package ipoib.verbs.loopback.ibsim;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The preload shims that stand in for umad2sim's defects, compiled with gcc into a test's
 * directory as {@code ./ipoib} compiles them into {@code ~/.ipoib/shims}; their sources (and
 * the defects, with ibsim's file and line) are in the hardware provider's tests.
 *
 * @param sim what every client preloads: the full-MAD shim on both sides of libumad2sim
 * @param rmpp the RMPP shim: the kernel MAD layer's RMPP sender (OpenSM's long answers) and
 *             receiver (a tool's long answers, saquery's tables)
 */
record Shims(String sim, Path rmpp) {
    private static final Path SOURCES = Path.of("../ipoib.verbs.fabric/src/test/c").toAbsolutePath().normalize();

    static Shims compile(Path dir) throws Exception {
        String sim = compile(dir, "umad2sim_full_mad.c", "umad2sim_full_mad.so") + ":" + RealIbsim.UMAD2SIM + ":"
                + compile(dir, "umad2sim_full_mad.c", "umad2sim_full_mad_socket.so", "-DSOCKET_SIDE");
        return new Shims(sim, compile(dir, "umad_rmpp_shim.c", "umad_rmpp_shim.so"));
    }

    /** What OpenSM and {@code ./ipoib diag}'s tools preload: the RMPP shim in front of {@link #sim}. */
    String withRmpp() {
        return rmpp + ":" + sim;
    }

    private static Path compile(Path dir, String file, String library, String... options) throws Exception {
        Path so = dir.resolve(library);
        List<String> command = new ArrayList<>(List.of("gcc", "-Wall", "-shared", "-fPIC"));
        command.addAll(List.of(options));
        command.addAll(List.of("-o", so.toString(), SOURCES.resolve(file).toString(), "-ldl", "-lpthread"));
        Process gcc = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
            fail("gcc could not build " + file + " (needs gcc and libibumad-dev):\n" + out);
        }
        return so;
    }
}
