package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs tshark as a user would and returns what it printed; fails the test naming the package when it is missing. */
final class Tshark {
    private Tshark() {}

    static String run(String... args) throws Exception {
        Path tshark = Path.of("/usr/bin/tshark");
        if (!Files.isExecutable(tshark)) {
            fail("tshark is required for this test: install the Debian package 'tshark' (./ipoib test does)");
        }
        List<String> command = new ArrayList<>(List.of(tshark.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tshark did not finish");
        assertEquals(0, p.exitValue(), "tshark " + String.join(" ", args) + ": " + out);
        return out;
    }
}
