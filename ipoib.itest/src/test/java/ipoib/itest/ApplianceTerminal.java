package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The appliance jar run as a user runs {@code ./ipoib} at a terminal: its stdin, stdout and
 * stderr are a pseudo-terminal (util-linux {@code script} allocates it, an xterm of 200 columns,
 * its own echo off), so the console's line editor reads the lines and echoes them. Commands are
 * typed as lines; output is read continuously, the line editor's escape codes taken out, and
 * waited on by condition, never by sleeping. What the screen shows is {@link TmuxTerminal}'s.
 */
final class ApplianceTerminal implements AutoCloseable {

    /** CSI and OSC sequences and ESC with one character (keypad modes): the line editor's, not text. */
    private static final Pattern ESCAPES = Pattern.compile("\u001b\\[[0-9;?]*[ -/]*[@-~]|\u001b\\][^\u0007]*\u0007|\u001b[()][0-9A-Za-z]|\u001b[=>]");

    private final Process process;
    private final StringBuilder output = new StringBuilder();
    private final OutputStream keyboard;
    private int markers;

    /** The appliance user's home (its console password, its history): the test's own. */
    private final Path home;

    private ApplianceTerminal(Process process, Path home) {
        this.process = process;
        this.home = home;
        this.keyboard = process.getOutputStream();
        Thread reader = new Thread(() -> drain(process.getInputStream()), "appliance-terminal-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts the appliance jar on a terminal with the extra JVM options and waits for its first prompt. */
    static ApplianceTerminal start(File appliance, String... jvmOptions) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path home = Files.createTempDirectory("ipoib-terminal-home");
        StringBuilder command = new StringBuilder("stty -echo cols 200 rows 50; exec ").append(quote(java));
        for (String option : ApplianceJvm.options()) {
            command.append(' ').append(quote(option));
        }
        command.append(' ').append(quote("-Duser.home=" + home));
        for (String option : jvmOptions) {
            command.append(' ').append(quote(option));
        }
        command.append(" -jar ").append(quote(appliance.getPath()));
        ProcessBuilder builder = new ProcessBuilder(List.of("script", "-qfec", command.toString(), "/dev/null"))
                .redirectErrorStream(true);
        builder.environment().put("TERM", "xterm-256color");
        Process process = builder.start();
        ApplianceTerminal terminal = new ApplianceTerminal(process, home);
        terminal.awaitOutput("g! ", Duration.ofSeconds(60));
        return terminal;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private void drain(InputStream in) {
        byte[] buffer = new byte[8192];
        try {
            int n;
            while ((n = in.read(buffer)) > 0) {
                synchronized (output) {
                    output.append(withoutEscapes(new String(buffer, 0, n, StandardCharsets.UTF_8)).replace("\r", ""));
                    output.notifyAll();
                }
            }
        } catch (IOException e) {
            // The process ended.
        }
    }

    /** An escape code cut at the end of the last read, kept for the next. */
    private String pending = "";

    private String withoutEscapes(String read) {
        String text = pending + read;
        int esc = text.lastIndexOf('\u001b');
        pending = "";
        if (esc >= 0 && text.length() - esc < 32 && !ESCAPES.matcher(text.substring(esc)).lookingAt()) {
            pending = text.substring(esc);
            text = text.substring(0, esc);
        }
        return ESCAPES.matcher(text).replaceAll("");
    }

    /** Everything the appliance wrote so far (stdout and stderr). */
    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** Waits until the output from {@code from} on contains {@code text}; returns the index after it. */
    int awaitOutput(String text, int from, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (output) {
            while (true) {
                int at = output.indexOf(text, from);
                if (at >= 0) {
                    return at + text.length();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && output.indexOf(text, from) < 0) {
                    throw new AssertionError("no '" + text + "' within " + timeout + " (process "
                            + (process.isAlive() ? "running" : "exited") + "); output from there:\n"
                            + output.substring(Math.min(from, output.length())));
                }
                try {
                    output.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        }
    }

    int awaitOutput(String text, Duration timeout) {
        return awaitOutput(text, 0, timeout);
    }

    /** Types the lines without waiting. */
    void type(String lines) throws IOException {
        keyboard.write(lines.getBytes(StandardCharsets.UTF_8));
        keyboard.flush();
    }

    /**
     * Types a command and waits until it has finished: a marker echoed after it appears on a line
     * of its own (not the line editor's echo of the {@code echo} command). Returns what the
     * command printed, after its echoed line with the prompt stripped.
     */
    String command(String command, Duration timeout) throws IOException {
        int from = output().length();
        String marker = "@@done-" + (++markers);
        type(command + "\necho " + marker + "\n");
        int end = awaitOutput("\n" + marker + "\n", from, timeout);
        String text = output().substring(from, end - marker.length() - 1);
        return text.replace("g! ", "");
    }

    /**
     * Types {@code keys} once the line editor waits at its prompt. JLine draws the prompt after it
     * has put the terminal in raw mode, where Ctrl-D is a key it reads; typed while the previous
     * command still runs, the terminal's canonical mode takes Ctrl-D as an end of file that no
     * read waits for, and the editor later reads a NUL in its place.
     */
    void typeAtThePrompt(String keys, Duration timeout) throws IOException {
        int from = output().length();
        String marker = "@@prompt-" + (++markers);
        type("echo " + marker + "\n");
        int end = awaitOutput("\n" + marker + "\n", from, timeout);
        awaitOutput("g! ", end, timeout);
        type(keys);
    }

    /** The appliance's JVM (the child of {@code script}). */
    ProcessHandle jvm() {
        Optional<ProcessHandle> java = process.toHandle().descendants()
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst();
        return java.orElseThrow(() -> new AssertionError("no java process under script"));
    }

    /** Waits for the terminal session to end; returns its exit status. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("appliance did not exit within " + timeout + "; output:\n" + output());
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        List<ProcessHandle> all = new ArrayList<>(process.toHandle().descendants().toList());
        all.forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try (var files = Files.walk(home)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary directory: left for the system to clean.
        }
    }
}
