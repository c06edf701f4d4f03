package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Test;

/**
 * The shell as an operator meets it in a terminal emulator ({@code ./ipoib} in tmux, the screen
 * read as tmux renders it): Tab completes a command and an interface name; Ctrl-C drops the line
 * being typed; Up recalls the last command, and the history is kept in {@code ~/.ipoib/history},
 * readable by the user only; a listing's {@code --json} is one object Python's json reads; a
 * pipeline prints its lines and no {@code true} after them; a log line that arrives while the
 * {@code g!} prompt waits is written above the prompt, which comes back with what was typed;
 * {@code ipoib:config} does not report a value as set when the component refuses it; no escape
 * codes show. One appliance for all of them.
 */
public class ShellAtATerminalIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration KEYS = Duration.ofSeconds(10);
    /** The appliance's log lines on stderr: "HH:mm:ss.SSS LEVEL source: message". */
    private static final Pattern LOG_LINE = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (ERROR|WARN|INFO|DEBUG) ");
    /** What a terminal shows of an escape code it did not take: ^[, ESC itself, [0m, [A. */
    private static final Pattern ESCAPE_NOISE = Pattern.compile("\\^\\[|\u001b|\\[[0-9;]*m|\\[[ABCD](?![a-z])");

    @Test
    public void theShellAtATerminal() throws Exception {
        File appliance = new File(System.getProperty("appliance.jar", "missing"));
        assertTrue("appliance jar built by ipoib.appliance: " + appliance, appliance.isFile());
        Path home = Files.createTempDirectory("ipoib-shell-home");
        try (TmuxTerminal terminal = TmuxTerminal.start(appliance, home, "-Dorg.osgi.service.http.port=0")) {
            // Tab completes the command, Enter runs it; Tab completes an interface name.
            terminal.type("ipoib:li");
            terminal.keys("Tab");
            terminal.awaitScreen("ipoib:li completed", KEYS, s -> TmuxTerminal.lastLine(s).equals("g! ipoib:links"));
            terminal.keys("Enter");
            terminal.awaitScreen("ipoib:links to run", TIMEOUT,
                    s -> s.contains("ib1_1_ffff: ") && TmuxTerminal.lastLine(s).equals("g!"));
            terminal.type("ipoib:stats ib1");
            terminal.keys("Tab");
            terminal.awaitScreen("the interface completed", KEYS,
                    s -> TmuxTerminal.lastLine(s).equals("g! ipoib:stats ib1_1_ffff"));
            // Ctrl-C drops the line, as bash does; the appliance goes on.
            terminal.keys("C-c");
            terminal.awaitScreen("Ctrl-C to drop the line", KEYS, s -> TmuxTerminal.lastLine(s).equals("g!"));
            // Up recalls the last command entered (the dropped line is not one).
            terminal.keys("Up");
            terminal.awaitScreen("Up to recall ipoib:links", KEYS,
                    s -> TmuxTerminal.lastLine(s).equals("g! ipoib:links"));
            terminal.keys("C-u");
            terminal.command("ipoib:await all 30", TIMEOUT);

            // --json: one object a real parser (Python's json) reads, the links' records in it.
            String listing = terminal.command("ipoib:links --json", TIMEOUT);
            int start = listing.indexOf("{\"links\"");
            assertTrue("a JSON object:\n" + listing, start >= 0);
            String object = listing.substring(start, listing.indexOf('\n', start));
            assertEquals("ib0_1_ffff UP 2044\nib1_1_ffff UP 2044\n", python("import json, sys\n"
                    + "for l in json.load(sys.stdin)['links']: print(l['name'], l['state'], l['mtu'])", object));

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
            // join timeout). A line is typed but not entered; a log line arriving after it goes above.
            terminal.command("fabric:fault sa-delay 1500", TIMEOUT);
            terminal.command("fabric:down loop1/1", TIMEOUT);
            terminal.command("fabric:up loop1/1", TIMEOUT);
            // From the prompt on (before it, keys typed ahead while a command ran are echoed by the
            // terminal itself, as with any shell, and a log line may follow them).
            int prompt = terminal.screen().split("\n").length - 1;
            String partial = "echo typed-before-the-log";
            terminal.type(partial);
            long before = joinFailures(terminal.screen());
            String screen = terminal.awaitScreen("a log line after the typing", TIMEOUT,
                    s -> joinFailures(s) > before && TmuxTerminal.lastLine(s).equals("g! " + partial));
            String[] lines = screen.split("\n");
            for (String line : java.util.Arrays.copyOfRange(lines, prompt, lines.length)) {
                Matcher log = LOG_LINE.matcher(line);
                if (log.find()) {
                    assertEquals("each log line starts a line of its own:\n" + screen, 0, log.start());
                }
            }
            terminal.keys("Enter");
            terminal.awaitScreen("the typed line to run", TIMEOUT, s -> s.contains("\ntyped-before-the-log\n"));
            terminal.command("fabric:clear", TIMEOUT);
            terminal.command("ipoib:await all 30", TIMEOUT);

            String all = terminal.screen();
            assertFalse("no escape codes on the screen:\n" + all, ESCAPE_NOISE.matcher(all).find());
            terminal.type("exit 0");
            terminal.keys("Enter");
            assertEquals(0, terminal.awaitExit(TIMEOUT));

            Path history = home.resolve(".ipoib/history");
            String kept = Files.readString(history);
            assertTrue("the commands entered are kept:\n" + kept, kept.contains("ipoib:links | grep UP")
                    && kept.contains("fabric:clear") && kept.contains("exit 0"));
            assertFalse("the line given up is not:\n" + kept, kept.contains("ipoib:stats ib1_1_ffff"));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(history)));
        } finally {
            try (var files = Files.walk(home)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** What {@code python3 -c program} prints for {@code input} on its stdin. */
    private static String python(String program, String input) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", program).redirectErrorStream(true).start();
        try (var stdin = p.getOutputStream()) {
            stdin.write(input.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals("python3 on " + input + ": " + out, 0, p.waitFor());
        return out;
    }

    private static long joinFailures(String screen) {
        return screen.lines().filter(l -> l.contains("broadcast join failed")).count();
    }
}
