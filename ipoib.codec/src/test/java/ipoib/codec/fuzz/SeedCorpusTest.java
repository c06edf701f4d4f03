package ipoib.codec.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The seeds of the regression corpus are what they claim: each one is accepted by its target's
 * main decoder (right checksums and CRCs, so that fuzzing starts past them), and every target
 * has seeds, also in the {@code all} corpus.
 */
class SeedCorpusTest {
    private static final Path INPUTS = Path.of("src/test/resources/ipoib/codec/fuzz/CodecFuzzTestInputs");

    private static final Map<String, Predicate<byte[]>> TARGETS = Map.of("arp", Targets::arp, "ip", Targets::ip,
            "nd", Targets::nd, "ibaPacket", Targets::ibaPacket, "ipoibReceive", Targets::ipoibReceive,
            "linkAddress", Targets::linkAddress, "mad", Targets::mad, "capture", Targets::capture,
            "cm", Targets::cm);

    @Test
    void everySeedIsAcceptedByItsTarget() throws IOException {
        List<String> rejected = new ArrayList<>();
        for (Map.Entry<String, Predicate<byte[]>> t : TARGETS.entrySet()) {
            List<Path> seeds = seeds(INPUTS.resolve(t.getKey()));
            assertTrue(!seeds.isEmpty(), "no seeds for target " + t.getKey());
            for (Path seed : seeds) {
                if (!t.getValue().test(Files.readAllBytes(seed))) {
                    rejected.add(t.getKey() + "/" + seed.getFileName());
                }
            }
            assertTrue(!seeds(INPUTS.resolve("all")).stream()
                    .filter(p -> p.getFileName().toString().startsWith("seed-" + t.getKey() + "-")).toList().isEmpty(),
                    "no seeds of " + t.getKey() + " in the 'all' corpus");
        }
        assertTrue(rejected.isEmpty(), "seeds their decoder rejects: " + rejected);
    }

    private static List<Path> seeds(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("seed-")).sorted().toList();
        }
    }
}
