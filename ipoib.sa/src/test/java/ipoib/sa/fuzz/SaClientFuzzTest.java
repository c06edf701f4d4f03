package ipoib.sa.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Coverage-guided fuzzing (Jazzer) of the SA client's receive path ({@link SaClientTarget}). Under
 * {@code ./ipoib test} it runs its regression corpus (the committed inputs in
 * {@code src/test/resources/ipoib/sa/fuzz/SaClientFuzzTestInputs/saClient/}: the seed and every
 * past finding) in seconds; {@code ./ipoib fuzz [minutes] saClient} fuzzes it with
 * {@code JAZZER_FUZZ=1}.
 */
class SaClientFuzzTest {
    private static final Path INPUTS = Path.of("src/test/resources/ipoib/sa/fuzz/SaClientFuzzTestInputs/saClient");

    @FuzzTest
    void saClient(byte[] input) {
        SaClientTarget.receive(input);
    }

    /** The seeds reach answer decoding, so that fuzzing starts past the transaction IDs. */
    @Test
    void everySeedEndsARequest() throws IOException {
        List<Path> seeds;
        try (Stream<Path> files = Files.list(INPUTS)) {
            seeds = files.filter(p -> p.getFileName().toString().startsWith("seed-")).sorted().toList();
        }
        assertTrue(!seeds.isEmpty(), "no seeds in " + INPUTS);
        for (Path seed : seeds) {
            assertTrue(SaClientTarget.receive(Files.readAllBytes(seed)), "seed " + seed.getFileName()
                    + " ends no request");
        }
    }
}
