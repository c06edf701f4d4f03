package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Test;

/**
 * The rough edges of the shell as an operator meets them at a terminal ({@code ./ipoib}, a
 * pseudo-terminal): a pipeline prints its lines and no {@code true} after them; a log line that
 * arrives while the {@code g!} prompt waits is written below it, on a line of its own, and the
 * prompt comes back; {@code ipoib:config} does not report a value as set when the component
 * refuses it; no escape codes anywhere. One appliance for all of them.
 */
public class ShellAtATerminalIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** The appliance's log lines on stderr: "HH:mm:ss.SSS LEVEL source: message". */
    private static final Pattern LOG_LINE = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (ERROR|WARN|INFO|DEBUG) ");

    @Test
    public void theShellAtATerminal() throws Exception {
        File appliance = new File(System.getProperty("appliance.jar", "missing"));
        assertTrue("appliance jar built by ipoib.appliance: " + appliance, appliance.isFile());
        try (ApplianceTerminal terminal = ApplianceTerminal.start(appliance, "-Dorg.osgi.service.http.port=0")) {
            terminal.command("ipoib:await all 30", TIMEOUT);

            // grep's true is a status, not output.
            String piped = terminal.command("ipoib:links | grep UP", TIMEOUT);
            assertEquals("the matching lines only:\n" + piped, 2, piped.lines().filter(l -> l.contains(": UP (")).count());
            assertFalse("no stray true:\n" + piped, piped.lines().anyMatch(l -> l.strip().equals("true")));
            String none = terminal.command("ipoib:links | grep NOSUCHWORD", TIMEOUT);
            assertFalse("no stray false:\n" + none, none.lines().anyMatch(l -> l.strip().equals("false")));

            // Two ipoib:config commands one after the other give both interfaces one name: the second is
            // refused, by the check before it is stored or by the component after, never reported as set.
            terminal.command("ipoib:config ipoib.link~default-loop0 name shared", TIMEOUT);
            String second = terminal.command("ipoib:config ipoib.link~default-loop1 name shared", TIMEOUT);
            assertFalse("the refused name is not reported as set:\n" + second,
                    second.contains("ipoib.link~default-loop1: name = shared"));
            assertTrue(second, second.contains("an interface named 'shared' exists"));
            assertTrue("said what stays: " + second,
                    second.contains("nothing was changed") || second.contains("in force: name = (default)"));
            String shown = terminal.command("ipoib:config ipoib.link~default-loop1", TIMEOUT);
            assertTrue("the name in force is shown, not the refused one:\n" + shown,
                    Pattern.compile("(?m)^\\s+name\\s+\\(default\\)").matcher(shown).find());
            terminal.command("ipoib:await all 30", TIMEOUT);

            // A link whose joins keep failing logs a WARN line now and then (the SA answers after the
            // join timeout). Nothing is typed after the marker: every such line arrives at the prompt.
            terminal.command("fabric:fault sa-delay 1500", TIMEOUT);
            terminal.command("fabric:down loop1/1", TIMEOUT);
            int from = terminal.output().length();
            terminal.type("fabric:up loop1/1\necho @@up-typed\n");
            int atPrompt = terminal.awaitOutput("@@up-typed\n", from, TIMEOUT);
            int logged = terminal.awaitOutput("broadcast join failed", atPrompt, TIMEOUT);
            String screen = terminal.output().substring(atPrompt);
            Matcher first = LOG_LINE.matcher(screen);
            assertTrue(screen, first.find());
            assertEquals("the waiting prompt is ended before the log line:\n" + screen, "g! \n", screen.substring(0, first.start()));
            terminal.awaitOutput("\ng! ", logged, TIMEOUT); // and comes back under it
            screen = terminal.output().substring(atPrompt);
            Matcher any = LOG_LINE.matcher(screen);
            while (any.find()) {
                assertEquals("each log line starts a line:\n" + screen, '\n', screen.charAt(any.start() - 1));
            }
            terminal.command("fabric:clear", TIMEOUT);

            assertFalse("no escape codes:\n" + terminal.output().replace("\u001b", "<ESC>"),
                    terminal.output().contains("\u001b"));
            terminal.type("exit 0\n");
            assertEquals(0, terminal.awaitExit(TIMEOUT));
        }
    }
}
