package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A terminal's view: stdout (the prompt) and stderr (the log) written to one screen. */
class PromptLineTest {

    private final ByteArrayOutputStream screen = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(screen, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(screen, true, StandardCharsets.UTF_8);

    @AfterEach
    void noPromptWaits() {
        PromptLine.answered();
    }

    private String screen() {
        return screen.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aLogLineWhileThePromptWaitsGoesBelowItAndThePromptComesBack() {
        PromptLine.prompt(out, "g! ");
        PromptLine.above(err, "12:00:00.000 WARN ipoib.mcast: join failed");
        PromptLine.above(err, "12:00:00.001 INFO ipoib.link: ib1_1_ffff UP");
        assertEquals("g! \n12:00:00.000 WARN ipoib.mcast: join failed\ng! \n12:00:00.001 INFO ipoib.link: ib1_1_ffff UP\ng! ",
                screen());
    }

    @Test
    void aLogLineWhileACommandRunsIsALineOfItsOwn() {
        PromptLine.prompt(out, "g! ");
        PromptLine.answered();
        screen.writeBytes("fabric:down loop1/1\n".getBytes(StandardCharsets.UTF_8)); // the terminal's echo
        PromptLine.above(err, "12:00:00.000 INFO ipoib.link: ib1_1_ffff DOWN");
        assertEquals("g! fabric:down loop1/1\n12:00:00.000 INFO ipoib.link: ib1_1_ffff DOWN\n", screen());
    }
}
