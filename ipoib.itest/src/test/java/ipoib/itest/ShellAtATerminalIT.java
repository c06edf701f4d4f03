package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The appliance's console as an operator meets it in a terminal emulator ({@code ./ipoib} in tmux,
 * keys sent as typed, the screen read as tmux renders it): Tab completes a command and an
 * interface name; Ctrl-C drops the line being typed; Up recalls the last command, and the history
 * is kept in {@code ~/.ipoib/history}, readable by the user only; a listing's {@code --json} is
 * one object Python's json reads; a pipeline prints its lines and no {@code true} after them; a
 * log line that arrives while the {@code g!} prompt waits is written above the prompt, which
 * comes back with what was typed; {@code ipoib:config} does not report a value as set when the
 * component refuses it; no escape codes show; memory stays flat over 1000 commands; every command
 * given wrong arguments prints its usage; the log level changes at runtime; Ctrl-D at the prompt
 * ends it with status 0.
 *
 * <p>One appliance for the class, as a start is most of its time: each test leaves it as it found
 * it (its defaults UP under their default names, the log levels at their defaults), and Ctrl-D
 * ends it after the last ({@code exit 0} at the console is {@code NetdevLifecycleIT}'s, on plain
 * lines).
 */
public class ShellAtATerminalIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration KEYS = Duration.ofSeconds(10);
    /** The appliance's log lines on stderr: "HH:mm:ss.SSS LEVEL source: message". */
    private static final Pattern LOG_LINE = Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (ERROR|WARN|INFO|DEBUG) ");
    /** What a terminal shows of an escape code it did not take: ^[, ESC itself, [0m, [A. */
    private static final Pattern ESCAPE_NOISE = Pattern.compile("\\^\\[|\u001b|\\[[0-9;]*m|\\[[ABCD](?![a-z])");

    private static Path home;
    private static TmuxTerminal terminal;

    @BeforeClass
    public static void start() throws Exception {
        home = Files.createTempDirectory("ipoib-shell-home");
        terminal = TmuxTerminal.start(IpoibCommand.appliance(), home, "-Dorg.osgi.service.http.port=0");
        awaitAllUp();
    }

    /**
     * Ctrl-D at the prompt leaves the appliance with status 0, and the history holds the lines
     * entered up to the last (each is written as it is entered), not the line given up with
     * Ctrl-C, readable by the user only.
     */
    @AfterClass
    public static void ctrlDEndsTheAppliance() throws Exception {
        if (terminal == null) {
            return;
        }
        try {
            terminal.keysAtThePrompt(TIMEOUT, "C-d");
            assertEquals("Ctrl-D stops the appliance", 0, terminal.awaitExit(TIMEOUT));
            Path history = home.resolve(".ipoib/history");
            String kept = Files.readString(history);
            assertTrue("the commands entered are kept:\n" + kept, kept.contains("ipoib:links | grep UP")
                    && kept.contains("fabric:clear") && kept.contains("echo at-the-prompt"));
            assertFalse("the line given up is not:\n" + kept, kept.contains("ipoib:stats ib1_1_ffff"));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(history)));
        } finally {
            terminal.close();
            try (var files = Files.walk(home)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    public void theShellAtATerminal() throws Exception {
        // Tab completes the command, Enter runs it; Tab completes an interface name.
        terminal.type("ipoib:li");
        terminal.keys("Tab");
        terminal.awaitLastLine("ipoib:li completed", KEYS, line -> line.equals("g! ipoib:links"));
        terminal.keys("Enter");
        terminal.awaitScreen("ipoib:links to run", TIMEOUT,
                s -> s.contains("ib1_1_ffff: ") && TmuxTerminal.lastLine(s).equals("g!"));
        terminal.type("ipoib:stats ib1");
        terminal.keys("Tab");
        terminal.awaitLastLine("the interface completed", KEYS, line -> line.equals("g! ipoib:stats ib1_1_ffff"));
        // Ctrl-C drops the line, as bash does; the appliance goes on.
        terminal.keys("C-c");
        terminal.awaitLastLine("Ctrl-C to drop the line", KEYS, line -> line.equals("g!"));
        // Up recalls the last command entered (the dropped line is not one).
        terminal.keys("Up");
        terminal.awaitLastLine("Up to recall ipoib:links", KEYS, line -> line.equals("g! ipoib:links"));
        terminal.keys("C-u");
        awaitAllUp();

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
        // The first interface's name back, as the other tests expect it (the name its device, port and
        // P_Key give it; ipoib:await all does not know an interface by an empty name).
        String back = terminal.command("ipoib:config ipoib.link~default-loop0 name ib0_1_ffff", TIMEOUT);
        assertTrue(back, back.contains("ipoib.link~default-loop0: name = ib0_1_ffff"));
        awaitAllUp();
        String renamed = terminal.command("ipoib:links", TIMEOUT);
        // No interface is named shared (the refusal of the second interface's update may still be shown).
        assertTrue(renamed, renamed.contains("ib0_1_ffff: UP") && !Pattern.compile("(?m)^shared: ").matcher(renamed).find());

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
        awaitAllUp();

        String all = terminal.screen();
        assertFalse("no escape codes on the screen:\n" + all, ESCAPE_NOISE.matcher(all).find());
    }

    /**
     * An operator's console left open must not grow: Gogo shell's own console kept every
     * command's job (about 37 KB each), so 1000 commands held some 37 MB after GC. The live
     * heap after a full GC and the number of Gogo job objects (one kept per command would be
     * 1000) are measured with jcmd before and after 1000 commands.
     */
    @Test
    public void memoryStaysFlatOverAThousandCommands() throws Exception {
        typeLinks(200);
        Histogram before = Histogram.of(terminal.jvm());
        typeLinks(1000);
        Histogram after = Histogram.of(terminal.jvm());
        String figures = "before: " + before + ", after 1000 commands: " + after;
        System.out.println("ShellAtATerminalIT: interactive console " + figures);
        assertTrue("Gogo jobs are not kept: " + figures, after.jobs() <= before.jobs() + 5);
        assertTrue("live heap after GC grows less than 16 MB: " + figures,
                after.liveBytes() - before.liveBytes() < 16L << 20);
    }

    private static void typeLinks(int count) throws IOException, InterruptedException {
        terminal.typeLines("ipoib:links\n".repeat(count));
        terminal.command("echo typed", Duration.ofMinutes(5));
    }

    /** Live objects after a full GC (jcmd GC.class_histogram runs one first). */
    record Histogram(long liveBytes, long jobs) {
        private static final Pattern TOTAL = Pattern.compile("^Total\\s+\\d+\\s+(\\d+)", Pattern.MULTILINE);
        private static final Pattern JOBS = Pattern.compile(
                "^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+org\\.apache\\.felix\\.gogo\\.runtime\\.CommandSessionImpl\\$JobImpl\\b",
                Pattern.MULTILINE);

        static Histogram of(ProcessHandle jvm) throws IOException, InterruptedException {
            String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            // jcmd's own JVM lives for a second: C1 and the serial collector, as the appliance's forks.
            Process p = new ProcessBuilder(List.of(jcmd, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC",
                    String.valueOf(jvm.pid()), "GC.class_histogram"))
                    .redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals("jcmd GC.class_histogram: " + text, 0, p.waitFor());
            Matcher total = TOTAL.matcher(text);
            assertTrue("histogram total in:\n" + text, total.find());
            Matcher jobs = JOBS.matcher(text);
            return new Histogram(Long.parseLong(total.group(1)), jobs.find() ? Long.parseLong(jobs.group(1)) : 0);
        }

        @Override
        public String toString() {
            return (liveBytes >> 10) + " KB live, " + jobs + " Gogo jobs";
        }
    }

    /**
     * Every command of the project (scopes ipoib, fabric, verbs, as 'help' lists them) given
     * arguments it cannot take prints its usage, never Gogo's "Cannot coerce"; ipoib:links takes
     * an interface name.
     */
    @Test
    public void everyCommandGivenWrongArgumentsPrintsItsUsage() throws Exception {
        String help = terminal.command("help", TIMEOUT);
        Set<String> commands = new TreeSet<>();
        Matcher m = Pattern.compile("\\b((?:ipoib|fabric|verbs):[a-z]+)\\b").matcher(help);
        while (m.find()) {
            commands.add(m.group(1));
        }
        assertTrue("help lists the project's commands:\n" + help,
                commands.containsAll(List.of("ipoib:links", "ipoib:log", "fabric:hcas", "fabric:sa", "verbs:devices")));
        // Typed as pasted, in one round trip; each output is checked on its own.
        List<String> lines = new ArrayList<>();
        for (String command : commands) {
            lines.add(command + " x x x x x x x x x x x x");
        }
        lines.addAll(List.of("fabric:hcas x", "ipoib:links ib1_1_ffff", "ipoib:links nosuch"));
        List<String> outputs = terminal.commands(lines, TIMEOUT);
        StringBuilder failures = new StringBuilder();
        for (int i = 0; i < commands.size(); i++) {
            String out = outputs.get(i);
            if (!out.contains("usage:") || out.contains("Cannot coerce")) {
                failures.append("\n").append(lines.get(i)).append(" printed: ").append(out);
            }
        }
        assertTrue("commands without usage for wrong arguments:" + failures, failures.isEmpty());
        String hcas = outputs.get(commands.size());
        assertTrue(hcas, hcas.contains("fabric:hcas: wrong arguments 'x'\nusage: fabric:hcas"));

        String one = outputs.get(commands.size() + 1);
        assertTrue(one, one.contains("ib1_1_ffff: UP"));
        assertFalse(one, one.contains("ib0_1_ffff"));
        String none = outputs.get(commands.size() + 2);
        assertTrue(none, none.contains("no interface 'nosuch'") && none.contains("usage: ipoib:links [interface]"));
    }

    /**
     * The log level changes at runtime: after 'ipoib:log INFO' a port reset shows what the
     * links and the multicast manager do about it, without the framework's service events;
     * 'ipoib:log framework DEBUG' adds those.
     */
    @Test
    public void logLevelAtRuntimeShowsTheProjectsMessagesWithoutFrameworkChatter() throws Exception {
        // The multicast manager learns of an UP link on its own thread, after ipoib:await has seen it.
        Await.until("the multicast manager to hold ib0_1_ffff's broadcast group", TIMEOUT,
                Duration.ofMillis(200), () -> mcastOf("ib0_1_ffff").contains("BROADCAST"), () -> mcastOf("ib0_1_ffff"));
        int mark = lines(terminal.screen());
        String level = terminal.command("ipoib:log INFO", TIMEOUT);
        assertTrue(level, level.contains("ipoib.log.level INFO  ipoib.log.framework WARN"));
        terminal.command("fabric:reset loop0/1", TIMEOUT);
        awaitAfter(mark, "INFO ipoib.link: ib0_1_ffff DOWN: port loop0/1 went down");
        awaitAfter(mark, "INFO ipoib.mcast: ib0_1_ffff: multicast joins forgotten (link went DOWN)");
        awaitAfter(mark, "INFO ipoib.link: ib0_1_ffff UP: QPN");
        awaitAllUp();
        String projectOnly = after(terminal.screen(), mark);
        assertFalse("no framework events at INFO:\n" + projectOnly, projectOnly.contains("ServiceEvent"));

        int mark2 = lines(terminal.screen());
        terminal.command("ipoib:log framework DEBUG", TIMEOUT);
        terminal.command("fabric:pkeys loop0/1 0xffff 0x8001", TIMEOUT);
        terminal.command("ipoib:create loop0 1 0x8001", TIMEOUT);
        awaitAfter(mark2, "ServiceEvent REGISTERED");

        String bad = terminal.command("ipoib:log LOUD", TIMEOUT);
        assertTrue(bad, bad.contains("log level 'LOUD': allowed ERROR, WARN, INFO, DEBUG, TRACE"));
        assertTrue(bad, bad.contains("usage: ipoib:log"));

        // Left as found: the levels at their defaults, the new interface gone, every interface UP.
        terminal.command("ipoib:log framework WARN", TIMEOUT);
        String restored = terminal.command("ipoib:log WARN", TIMEOUT);
        assertTrue(restored, restored.contains("ipoib.log.level WARN  ipoib.log.framework WARN"));
        terminal.command("ipoib:delete ib0_1_8001", TIMEOUT);
        awaitAllUp();
    }

    /** {@code ipoib:await all}, which must see every interface UP (it fails after its timeout otherwise). */
    private static void awaitAllUp() throws IOException, InterruptedException {
        String awaited = terminal.command("ipoib:await all 30", TIMEOUT);
        // A log line printed meanwhile (a join retried "within 1000 ms" on a busy machine) is not the command's answer.
        String answer = awaited.lines().filter(line -> !LOG_LINE.matcher(line).find()).collect(Collectors.joining("\n"));
        assertTrue(awaited, answer.contains("ib0_1_ffff UP") && answer.contains("ib1_1_ffff UP")
                && !answer.contains("within"));
    }

    private static int lines(String screen) {
        return screen.split("\n").length;
    }

    /** The screen's lines from line {@code mark} (0-based) on. */
    private static String after(String screen, int mark) {
        String[] lines = screen.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.min(mark, lines.length), lines.length));
    }

    private static void awaitAfter(int mark, String text) {
        terminal.awaitScreen("'" + text + "'", TIMEOUT, s -> after(s, mark).contains(text));
    }

    private static String mcastOf(String link) {
        try {
            return terminal.command("ipoib:mcast " + link, TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
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
