package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The appliance's interactive console as a user has it: {@code ./ipoib} at a terminal (a
 * pseudo-terminal), commands typed at the {@code g!} prompt. One appliance for the class: each
 * test leaves it as it found it (its defaults UP, the log levels at their defaults), and it is
 * left with Ctrl-D at the end, which must end it with status 0.
 */
public class ApplianceConsoleIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static ApplianceTerminal terminal;

    @BeforeClass
    public static void start() throws Exception {
        terminal = ApplianceTerminal.start(IpoibCommand.appliance(), "-Dorg.osgi.service.http.port=0");
        terminal.command("ipoib:await all 30", COMMAND_TIMEOUT);
    }

    /** Ctrl-D leaves the appliance, with status 0. */
    @AfterClass
    public static void ctrlDEndsTheAppliance() throws Exception {
        if (terminal == null) {
            return;
        }
        try {
            terminal.typeAtThePrompt("\u0004", COMMAND_TIMEOUT);
            assertEquals("Ctrl-D stops the appliance", 0, terminal.awaitExit(COMMAND_TIMEOUT));
        } finally {
            terminal.close();
        }
    }

    /**
     * An operator's console left open must not grow: Gogo shell's own console kept every
     * command's job (about 37 KB each), so 1000 commands held some 37 MB after GC. The live
     * heap after a full GC and the number of Gogo job objects (one kept per command would be
     * 1000) are measured with jcmd before and after 1000 commands.
     */
    @Test
    public void memoryStaysFlatOverAThousandCommands() throws Exception {
        typeLinks(terminal, 200);
        Histogram before = Histogram.of(terminal.jvm());
        typeLinks(terminal, 1000);
        Histogram after = Histogram.of(terminal.jvm());
        String figures = "before: " + before + ", after 1000 commands: " + after;
        System.out.println("ApplianceConsoleIT: interactive console " + figures);
        assertTrue("Gogo jobs are not kept: " + figures, after.jobs() <= before.jobs() + 5);
        assertTrue("live heap after GC grows less than 16 MB: " + figures,
                after.liveBytes() - before.liveBytes() < 16L << 20);
    }

    private static void typeLinks(ApplianceTerminal terminal, int count) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < count; i++) {
            lines.append("ipoib:links\n");
        }
        terminal.type(lines.toString());
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
            Process p = new ProcessBuilder(List.of(jcmd, String.valueOf(jvm.pid()), "GC.class_histogram"))
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
        String help = terminal.command("help", COMMAND_TIMEOUT);
        Set<String> commands = new TreeSet<>();
        Matcher m = Pattern.compile("\\b((?:ipoib|fabric|verbs):[a-z]+)\\b").matcher(help);
        while (m.find()) {
            commands.add(m.group(1));
        }
        assertTrue("help lists the project's commands:\n" + help,
                commands.containsAll(List.of("ipoib:links", "ipoib:log", "fabric:hcas", "fabric:sa", "verbs:devices")));
        StringBuilder failures = new StringBuilder();
        for (String command : commands) {
            String line = command + " x x x x x x x x x x x x";
            String out = terminal.command(line, COMMAND_TIMEOUT);
            if (!out.contains("usage:") || out.contains("Cannot coerce")) {
                failures.append("\n").append(line).append(" printed: ").append(out);
            }
        }
        assertTrue("commands without usage for wrong arguments:" + failures, failures.isEmpty());
        String hcas = terminal.command("fabric:hcas x", COMMAND_TIMEOUT);
        assertTrue(hcas, hcas.contains("fabric:hcas: wrong arguments 'x'\nusage: fabric:hcas"));

        String one = terminal.command("ipoib:links ib1_1_ffff", COMMAND_TIMEOUT);
        assertTrue(one, one.contains("ib1_1_ffff: UP"));
        assertFalse(one, one.contains("ib0_1_ffff"));
        String none = terminal.command("ipoib:links nosuch", COMMAND_TIMEOUT);
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
        Await.until("the multicast manager to hold ib0_1_ffff's broadcast group", COMMAND_TIMEOUT,
                Duration.ofMillis(200), () -> mcastOf("ib0_1_ffff").contains("BROADCAST"), () -> mcastOf("ib0_1_ffff"));
        int mark = terminal.output().length();
        String level = terminal.command("ipoib:log INFO", COMMAND_TIMEOUT);
        assertTrue(level, level.contains("ipoib.log.level INFO  ipoib.log.framework WARN"));
        terminal.command("fabric:reset loop0/1", COMMAND_TIMEOUT);
        terminal.awaitOutput("INFO ipoib.link: ib0_1_ffff DOWN: port loop0/1 went down", mark, COMMAND_TIMEOUT);
        terminal.awaitOutput("INFO ipoib.mcast: ib0_1_ffff: multicast joins forgotten (link went DOWN)", mark,
                COMMAND_TIMEOUT);
        terminal.awaitOutput("INFO ipoib.link: ib0_1_ffff UP: QPN", mark, COMMAND_TIMEOUT);
        terminal.command("ipoib:await all 30", COMMAND_TIMEOUT);
        String projectOnly = terminal.output().substring(mark);
        assertFalse("no framework events at INFO:\n" + projectOnly, projectOnly.contains("ServiceEvent"));

        int mark2 = terminal.output().length();
        terminal.command("ipoib:log framework DEBUG", COMMAND_TIMEOUT);
        terminal.command("fabric:pkeys loop0/1 0xffff 0x8001", COMMAND_TIMEOUT);
        terminal.command("ipoib:create loop0 1 0x8001", COMMAND_TIMEOUT);
        terminal.awaitOutput("ServiceEvent REGISTERED", mark2, COMMAND_TIMEOUT);

        String bad = terminal.command("ipoib:log LOUD", COMMAND_TIMEOUT);
        assertTrue(bad, bad.contains("log level 'LOUD': allowed ERROR, WARN, INFO, DEBUG, TRACE"));
        assertTrue(bad, bad.contains("usage: ipoib:log"));

        // Left as found: the levels at their defaults, the new interface gone, every interface UP.
        terminal.command("ipoib:log framework WARN", COMMAND_TIMEOUT);
        String restored = terminal.command("ipoib:log WARN", COMMAND_TIMEOUT);
        assertTrue(restored, restored.contains("ipoib.log.level WARN  ipoib.log.framework WARN"));
        terminal.command("ipoib:delete ib0_1_8001", COMMAND_TIMEOUT);
        terminal.command("ipoib:await all 30", COMMAND_TIMEOUT);
    }

    private static String mcastOf(String link) {
        try {
            return terminal.command("ipoib:mcast " + link, COMMAND_TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
