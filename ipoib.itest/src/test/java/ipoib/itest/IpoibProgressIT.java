package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Where people wait on {@code ./ipoib}: a build, a fuzzing run, a soak. {@code ./ipoib build}
 * leaves the appliance built, so the next {@code ./ipoib} starts it at once; a build that must
 * happen says so and shows its progress; fuzz and soak show elapsed and remaining time and what
 * was done so far; on a terminal (a pseudo-terminal made by util-linux {@code script}) one line
 * is rewritten in place, otherwise (a CI log) a plain line now and then; no escape codes.
 *
 * <p>The script runs in a copy of the workspace with a stand-in for Maven on the PATH that
 * records how it was called and prints what the test feeds it through a FIFO (Maven's reactor
 * lines, libFuzzer's statistics, the soak's event lines), so the test decides when each line
 * comes; its "build" of the appliance is a stand-in jar ({@link StandInAppliance}: what is tested
 * is the script, not the appliance, which runs through {@code ./ipoib} in ApplianceScriptIT) that
 * prints the script it was given, as the appliance does, and ends. How {@code ./ipoib} hands the
 * appliance a script from a pipe or a process substitution, and the name its errors give it, is
 * tested with the stand-in too. One test runs the real Maven, for its console
 * library's escape codes.
 */
public class IpoibProgressIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final String ESC = "\u001b";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path realWorkspace;
    private Path appliance;
    private Path workspace;
    private Path stubs;
    private Path calls;
    private Path feed;

    @Before
    public void copyTheScript() throws IOException, InterruptedException {
        appliance = new File(System.getProperty("appliance.jar", "missing")).getAbsoluteFile().toPath();
        assertTrue("appliance jar built by ipoib.appliance: " + appliance, Files.isRegularFile(appliance));
        realWorkspace = appliance.getParent().getParent().getParent();
        workspace = tmp.newFolder("workspace").toPath();
        Files.copy(realWorkspace.resolve("ipoib"), workspace.resolve("ipoib"));
        Files.createDirectories(workspace.resolve("ipoib.appliance/target"));
        Files.createDirectories(workspace.resolve("ipoib.codec"));
        stubs = tmp.newFolder("stubs").toPath();
        calls = tmp.newFile("calls.log").toPath();
        feed = tmp.getRoot().toPath().resolve("feed");
        assertEquals(0, new ProcessBuilder("mkfifo", feed.toString()).start().waitFor());
        // Maven: the lines the test feeds for the run that FEED_FOR matches, a short reactor for the
        // others; a build that includes the appliance leaves the (stand-in) appliance jar.
        stub("mvn", """
                echo "mvn $*" >> "$CALLS"
                if [ -n "${FEED_FOR:-}" ] && [[ "$*" == *"$FEED_FOR"* ]]; then
                  cat "$FEED"
                else
                  echo '[INFO] Reactor Build Order:'
                  echo '[INFO] ------------------------< org.ipoib:ipoib.api >-------------------------'
                  echo '[INFO] Building ipoib.api: the service interfaces 0.1.0-SNAPSHOT                 [1/2]'
                  echo '[INFO] ---------------------< org.ipoib:ipoib.appliance >----------------------'
                  echo '[INFO] Building ipoib.appliance 0.1.0-SNAPSHOT                                  [2/2]'
                  echo '[INFO] BUILD SUCCESS'
                fi
                [[ "$*" == *install* ]] && [[ "$*" != *"-pl ipoib.codec"* && "$*" != *"-pl ipoib.itest"* ]] \\
                  && cp "$REAL_JAR" ipoib.appliance/target/ipoib.jar
                exit 0
                """);
    }

    private void stub(String name, String body) throws IOException {
        Path file = stubs.resolve(name);
        Files.writeString(file, "#!/usr/bin/env bash\n" + body, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** ./ipoib ARGS in the copy, stdout and stderr in files; on a terminal when {@code terminal}. */
    private Running start(boolean terminal, String feedFor, String... args) throws IOException {
        // A terminal of 80 columns, as most are: the progress line must fit.
        StringBuilder line = new StringBuilder(terminal ? "stty cols 80; exec bash ipoib" : "exec bash ipoib");
        for (String a : args) {
            line.append(" '").append(a.replace("'", "'\\''")).append('\'');
        }
        return startLine(terminal, feedFor, line.toString());
    }

    /** A bash command line in the copy (for what only a shell writes: a pipe, {@code <(...)}); on a terminal when {@code terminal}. */
    private Running startLine(boolean terminal, String feedFor, String line) throws IOException {
        List<String> command = new ArrayList<>();
        if (terminal) {
            // script's own stdin stays a pipe from the test: the appliance's terminal gets no input.
            command.addAll(List.of("script", "-qfec", line, "/dev/null"));
        } else {
            command.addAll(List.of("bash", "-c", line));
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.toFile());
        builder.environment().put("PATH", stubs + File.pathSeparator + System.getenv("PATH"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("CALLS", calls.toString());
        builder.environment().put("FEED", feed.toString());
        builder.environment().put("REAL_JAR", StandInAppliance.jar().toString());
        builder.environment().put("IPOIB_JAVA_OPTS", String.join(" ", ApplianceJvm.SHORT_LIVED));
        builder.environment().put("IPOIB_PROGRESS_INTERVAL", "1");
        // A terminal's line is rewritten at most once a second; here ten times as often, so that
        // each test waits a tenth of a second for the line it reads, not a second.
        builder.environment().put("IPOIB_PROGRESS_REFRESH", "0.1");
        builder.environment().remove("IPOIB_APPLIANCE");
        builder.environment().remove("NO_COLOR");
        if (feedFor != null) {
            builder.environment().put("FEED_FOR", feedFor);
        }
        File out = tmp.newFile();
        File err = tmp.newFile();
        builder.redirectOutput(out).redirectError(err);
        if (!terminal) {
            builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        return new Running(builder.start(), out.toPath(), err.toPath());
    }

    /** A run of the script; on a terminal stdout and stderr are both the terminal's output ({@link #out}). */
    record Running(Process process, Path outFile, Path errFile) {
        String out() throws IOException {
            return Files.readString(outFile, StandardCharsets.UTF_8);
        }

        String err() throws IOException {
            return Files.readString(errFile, StandardCharsets.UTF_8);
        }

        /** Polls (the output is a file) until {@code done} holds for stdout + stderr; returns them. */
        String await(String what, Predicate<String> done) throws IOException {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (true) {
                String all = out() + err();
                if (done.test(all)) {
                    return all;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no " + what + " within " + TIMEOUT + "; output:\n" + all.replace("\r", "<CR>\n"));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }

        int exit() throws IOException, InterruptedException {
            if (!process.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("./ipoib did not end; output:\n" + out() + err());
            }
            return process.exitValue();
        }
    }

    /** Opens the FIFO the stand-in Maven reads (blocks until it does); closing it ends that Maven. */
    private OutputStream openFeed() throws IOException {
        return Files.newOutputStream(feed);
    }

    private static void send(OutputStream feed, String lines) throws IOException {
        feed.write(lines.getBytes(StandardCharsets.UTF_8));
        feed.flush();
    }

    private long mavenRuns() throws IOException {
        return Files.readString(calls).lines().filter(l -> l.startsWith("mvn")).count();
    }

    @Test
    public void afterIpoibBuildTheNextRunDoesNotBuild() throws Exception {
        Running build = start(false, null, "build");
        assertEquals("./ipoib build; stderr:\n" + build.err(), 0, build.exit());
        assertTrue("the appliance is marked built", Files.isRegularFile(workspace.resolve("ipoib.appliance/target/.built")));

        Path script = tmp.newFile("ran.gosh").toPath();
        Files.writeString(script, "echo ran\n");
        Running run = start(false, null, "--script", script.toString());
        assertEquals("./ipoib --script; stderr:\n" + run.err(), 0, run.exit());
        assertEquals("Maven ran once, for ./ipoib build:\n" + Files.readString(calls), 1, mavenRuns());
        assertFalse(run.err(), run.err().contains("building"));
        assertTrue("the appliance ran the script:\n" + run.out(), run.out().contains("g! echo ran\nran\n"));
    }

    /**
     * Commands piped into {@code ./ipoib} and a script from a process substitution
     * ({@code ./ipoib --script <(...)}, not a regular file) reach the appliance through its stdin,
     * and its errors name them as the user gave them: {@code stdin} for the pipe, the
     * substitution's path for the other; the appliance's exit status is {@code ./ipoib}'s.
     */
    @Test
    public void pipedCommandsAreNamedStdinAndAProcessSubstitutionByItsPath() throws Exception {
        Running piped = startLine(false, null, "printf 'echo first\\nfail\\necho never\\n' | exec bash ipoib");
        assertEquals("piped; stderr:\n" + piped.err(), 1, piped.exit());
        assertTrue(piped.out(), piped.out().contains("g! echo first\nfirst\ng! fail\n") && !piped.out().contains("never"));
        assertTrue(piped.err(), piped.err().contains("ipoib: stdin line 2: command failed: fail"));

        Running substituted = startLine(false, null, "exec bash ipoib --script <(printf 'echo sub\\nfail\\n')");
        assertEquals("substituted; stderr:\n" + substituted.err(), 1, substituted.exit());
        assertTrue(substituted.out(), substituted.out().contains("g! echo sub\nsub\ng! fail\n"));
        assertTrue(substituted.err(),
                substituted.err().matches("(?s).*ipoib: /dev/fd/\\d+ line 2: command failed: fail\n.*"));
    }

    @Test
    public void aBuildTheRunNeedsSaysSoAndShowsItsProgressOnATerminal() throws Exception {
        Path script = tmp.newFile("empty.gosh").toPath();
        Running run = start(true, "-pl ipoib.appliance -am install", "--script", script.toString());
        try (OutputStream maven = openFeed()) {
            send(maven, "[INFO] ------------------------< org.ipoib:ipoib.api >-------------------------\n"
                    + "[INFO] Building ipoib.api: the service interfaces 0.1.0-SNAPSHOT                 [1/3]\n");
            run.await("the first module", o -> o.contains("\ripoib: building ipoib.api (1 of 3), 0:0"));
            send(maven, "[INFO] ------------------------< org.ipoib:ipoib.link >------------------------\n"
                    + "[INFO] Building ipoib.link: the IPoIB link 0.1.0-SNAPSHOT                        [2/3]\n");
            String shown = run.await("the second module with the time left",
                    o -> o.matches("(?s).*\ripoib: building ipoib\\.link \\(2 of 3\\), \\d:\\d\\d, about \\d:\\d\\d left.*"));
            assertTrue("it says why it builds:\n" + shown, shown.contains("ipoib: building the appliance (not built yet)"));
            assertFalse("progress lines are rewritten in place, not one per update:\n" + shown,
                    shown.contains("ipoib: building ipoib.api (1 of 3), 0:00\n"));
        }
        assertEquals(0, run.exit());
        String all = run.out() + run.err();
        assertTrue(all, all.contains("ipoib: built in "));
        assertFalse("no escape codes on the terminal:\n" + all, all.contains(ESC));
        assertTrue("the appliance it built then ran:\n" + all,
                all.contains("ipoib: web console at") && all.contains("(stand-in)"));
    }

    @Test
    public void withoutATerminalProgressIsAPlainLineNowAndThen() throws Exception {
        Running run = start(false, "install", "build");
        try (OutputStream maven = openFeed()) {
            StringBuilder modules = new StringBuilder();
            for (int i = 1; i <= 300; i++) {
                modules.append("[INFO] Building module").append(i).append(" 0.1.0-SNAPSHOT [").append(i).append("/400]\n");
            }
            send(maven, modules.toString());
            // The interval (IPOIB_PROGRESS_INTERVAL, 1 s here; a minute by default) passes while Maven works.
            run.await("a progress line", o -> o.contains("(300 of 400)"));
        }
        assertEquals(0, run.exit());
        String err = run.err();
        assertFalse("no carriage returns in a log:\n" + err, err.contains("\r"));
        assertFalse("no escape codes in a log:\n" + err, err.contains(ESC));
        assertTrue("300 modules make a few lines, not one each:\n" + err, err.lines().count() <= 5);
        assertTrue(err, err.matches("(?s).*ipoib: building \\(300 of 400\\), \\d:\\d\\d, about \\d:\\d\\d left\n.*"));
    }

    @Test
    public void fuzzingShowsInputsCoverageAndTimeLeft() throws Exception {
        Running run = start(true, "surefire:test", "fuzz", "1", "arp");
        try (OutputStream jazzer = openFeed()) {
            send(jazzer, "INFO: Seed: 12345\n#2\tINITED cov: 104 ft: 104 corp: 1/1b exec/s: 0 rss: 301Mb\n");
            send(jazzer, "#65536\tpulse  cov: 212 ft: 530 corp: 37/1290b lim: 652 exec/s: 21845 rss: 330Mb\n");
            run.await("the fuzzer's statistics",
                    o -> o.matches("(?s).*\ripoib: fuzzing 0:\\d\\d, 0:\\d\\d left: 65536 inputs \\(21845/s\\), "
                            + "212 edges, 0 findings.*"));
            send(jazzer, "Done 70000 runs in 60 second(s)\n");
        }
        assertEquals(0, run.exit());
        String all = run.out() + run.err();
        assertTrue(all, all.contains("ipoib: fuzz target arp, 1 min: 70000 inputs executed (21845/s at the end), 212 coverage edges, corpus 37/1290b"));
        assertFalse("no escape codes:\n" + all, all.contains(ESC));
    }

    @Test
    public void theSoakShowsEventsAndTimeLeftAndEveryEventNotHealed() throws Exception {
        Running run = start(true, "-Dit.test=Soak", "soak", "2", "7");
        try (OutputStream soak = openFeed()) {
            send(soak, "[INFO] Running ipoib.itest.Soak\nsoak: seed 7, 2 min, 3 interfaces, traffic flows after 900 ms\n");
            send(soak, "soak: event 1 loss 20% healed in 310 ms\nsoak: event 2 port down loop1/1 NOT healed within 30 s\n"
                    + "soak: event 3 sa-delay 200 healed in 120 ms\n");
            String shown = run.await("the soak's progress",
                    o -> o.matches("(?s).*\ripoib: soak 0:\\d\\d, 1:\\d\\d left: 3 events, 1 not healed.*"));
            assertTrue("an event that did not heal stays on its own line:\n" + shown,
                    shown.contains("ipoib: soak: event 2 port down loop1/1 NOT healed within 30 s\r\n")
                            || shown.contains("ipoib: soak: event 2 port down loop1/1 NOT healed within 30 s\n"));
        }
        run.exit();
        String all = run.out() + run.err();
        assertFalse("no escape codes:\n" + all, all.contains(ESC));
    }

    /**
     * The real Maven: Debian's 3.8 writes ESC[0m through its console library on every run, batch
     * mode or not, to a terminal or a file. {@code ./ipoib test} shows Maven's output and passes
     * its arguments on ({@code --version} runs no build); the packages it checks first are there,
     * as this test runs under it.
     */
    @Test
    public void mavenRunsWithoutEscapeCodes() throws Exception {
        List<String> command = List.of("bash", "-c", "exec ./ipoib test --version");
        ProcessBuilder builder = new ProcessBuilder(command).directory(realWorkspace.toFile()).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = builder.start();
        String output;
        try (InputStream in = p.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(output, 0, p.exitValue());
        assertTrue("Maven ran:\n" + output, output.contains("Apache Maven"));
        assertFalse("no escape codes:\n" + output.replace(ESC, "<ESC>"), output.contains(ESC));
    }
}
