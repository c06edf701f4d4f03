package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The appliance jar run as a user runs {@code ./ipoib} in a terminal emulator: a tmux session
 * (Debian's tmux, on a server of its own) runs it, keys are sent as a user types them, and the
 * screen is read back as tmux renders it (escape codes applied, as the user sees them), with its
 * scrollback. Waits poll the screen, never sleep for a fixed time.
 */
final class TmuxTerminal implements AutoCloseable {
    private static final Duration POLL = Duration.ofMillis(100);
    /** A command's end is looked for more often: a look reads the last lines only. */
    private static final Duration COMMAND_POLL = Duration.ofMillis(30);
    private final String socket;
    private final Path directory;
    private int markers;

    private TmuxTerminal(String socket, Path directory) {
        this.socket = socket;
        this.directory = directory;
    }

    /** Starts the appliance jar, with {@code home} as its user's home and the extra JVM options, and waits for its prompt. */
    static TmuxTerminal start(File appliance, Path home, String... jvmOptions) throws IOException, InterruptedException {
        Path directory = Files.createTempDirectory("ipoib-tmux");
        // Its own configuration: a long scrollback, and the pane kept after the appliance ends.
        Path config = Files.writeString(directory.resolve("tmux.conf"),
                "set -g history-limit 100000\nset -g remain-on-exit on\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        // The first fork of a run when the classes run in the order of the file system: the shared
        // class archive, when still to be made, is made beside it rather than before it.
        command.addAll(ApplianceJvm.optionsWithoutWaitingForTheArchive());
        command.add("-Duser.home=" + home);
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-jar", appliance.getPath()));
        TmuxTerminal terminal = new TmuxTerminal("ipoib-itest-" + ProcessHandle.current().pid(), directory);
        List<String> tmux = new ArrayList<>(List.of("-f", config.toString(), "new-session", "-d", "-s", "ipoib",
                "-x", "200", "-y", "50", "-e", "HOME=" + home));
        // The shell tmux runs writes the appliance's exit status where the test reads it.
        tmux.add(String.join(" ", command.stream().map(TmuxTerminal::quote).toList()) + "; echo $? > "
                + quote(directory.resolve("status").toString()));
        terminal.tmux(tmux.toArray(String[]::new));
        terminal.awaitLastLine("the g! prompt", Duration.ofSeconds(60), line -> line.equals("g!"));
        return terminal;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new AssertionError(command + " failed: " + out);
        }
        return out;
    }

    /** Sends keys as tmux names them ({@code Tab}, {@code Up}, {@code Enter}, {@code C-u}). */
    void keys(String... keys) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("send-keys", "-t", "ipoib"));
        args.addAll(List.of(keys));
        tmux(args.toArray(String[]::new));
    }

    /** Types {@code text} literally (no key names). */
    void type(String text) throws IOException, InterruptedException {
        tmux("send-keys", "-t", "ipoib", "-l", text);
    }

    /**
     * Types many lines ahead, each ended by a line feed as Enter ends it, without waiting for
     * them to run; in pieces, as tmux takes a command of at most 16 KB.
     */
    void typeLines(String lines) throws IOException, InterruptedException {
        int from = 0;
        while (from < lines.length()) {
            int to = Math.min(lines.length(), from + 4096);
            int end = lines.lastIndexOf('\n', to - 1);
            to = end >= from ? end + 1 : to;
            type(lines.substring(from, to));
            from = to;
        }
    }

    /** The screen and its scrollback as rendered, wrapped lines joined, trailing blank lines left out. */
    String screen() {
        return capture("-");
    }

    /**
     * The screen and the last {@value #RECENT} lines above it: what a wait for the end of a command
     * reads, as the whole scrollback grows to thousands of lines over a session.
     */
    private String recent() {
        return capture("-" + RECENT);
    }

    private static final int RECENT = 500;

    private String capture(String start) {
        try {
            return tmux("capture-pane", "-p", "-J", "-S", start, "-t", "ipoib").stripTrailing();
        } catch (IOException | InterruptedException e) {
            throw new AssertionError("tmux capture-pane", e);
        }
    }

    static String lastLine(String screen) {
        String[] lines = screen.split("\n");
        return lines[lines.length - 1].stripTrailing();
    }

    interface ScreenCondition {
        boolean holds(String screen);
    }

    /** Waits until the screen satisfies {@code condition}; returns that screen. */
    String awaitScreen(String what, Duration timeout, ScreenCondition condition) {
        String[] seen = {""};
        Await.until(what, timeout, POLL, () -> condition.holds(seen[0] = screen()), () -> "; the screen:\n" + seen[0]);
        return seen[0];
    }

    /**
     * Waits until the screen's last line satisfies {@code condition} (a prompt, a completed line):
     * reads the last lines only, not the scrollback, which grows to thousands of lines over a
     * session, and so looks as often as a command's wait does.
     */
    void awaitLastLine(String what, Duration timeout, ScreenCondition condition) {
        String[] seen = {""};
        Await.until(what, timeout, COMMAND_POLL, () -> condition.holds(lastLine(seen[0] = recent())),
                () -> "; the screen:\n" + seen[0]);
    }

    /**
     * Types a command and Enter, then a marker's echo, and waits for the marker's line: returns the
     * lines from the command's prompt line to the marker's prompt line. The keys go in one call of
     * tmux, and the wait reads the screen with the lines just above it, not the whole scrollback,
     * which grows to thousands of lines over a session.
     */
    String command(String command, Duration timeout) throws IOException, InterruptedException {
        String marker = "@@done-" + (++markers);
        tmux("send-keys", "-t", "ipoib", "-l", command, ";", "send-keys", "-t", "ipoib", "Enter", ";",
                "send-keys", "-t", "ipoib", "-l", "echo " + marker, ";", "send-keys", "-t", "ipoib", "Enter");
        Pattern done = Pattern.compile("(?m)^" + marker + "$");
        String[] recent = {""};
        Await.until("'" + command + "' to end", timeout, COMMAND_POLL, () -> done.matcher(recent[0] = recent()).find(),
                () -> "; the screen:\n" + recent[0]);
        String output = between(recent[0], command, marker);
        return output != null ? output : between(screen(), command, marker);
    }

    /**
     * Runs {@code commands} one after the other as a user pastes them: typed at the prompt in one
     * go, each ended by a line feed as Enter ends it, then a marker's echo; waits for the marker's
     * line and returns each command's output (the lines from its prompt line up to the next prompt
     * line), in order. One round trip for all: a round trip per command takes most of the time of
     * many short ones. The keys are typed once the editor waits at its prompt, in raw mode, so
     * that the terminal itself echoes none of them.
     */
    List<String> commands(List<String> commands, Duration timeout) throws IOException, InterruptedException {
        awaitLastLine("the g! prompt", timeout, line -> line.equals("g!"));
        String marker = "@@done-" + (++markers);
        typeLines(String.join("\n", commands) + "\necho " + marker + "\n");
        Pattern done = Pattern.compile("(?m)^" + marker + "$");
        String[] recent = {""};
        Await.until(commands.size() + " commands to end", timeout, COMMAND_POLL,
                () -> done.matcher(recent[0] = recent()).find(), () -> "; the screen:\n" + recent[0]);
        String screen = screen();
        String[] lines = screen.split("\n");
        int at = lines.length - 1;
        while (at >= 0 && !lines[at].equals(marker)) {
            at--;
        }
        List<String> outputs = new ArrayList<>();
        for (int i = commands.size() - 1; i >= 0; i--) {
            String prompt = ("g! " + commands.get(i)).stripTrailing();
            int start = at - 1;
            while (start >= 0 && !lines[start].stripTrailing().equals(prompt)) {
                start--;
            }
            if (start < 0) {
                throw new AssertionError("no prompt line '" + prompt + "' before '" + marker + "'; the screen:\n" + screen);
            }
            int next = start + 1;
            while (next < at && !lines[next].startsWith("g! ")) {
                next++;
            }
            outputs.add(0, String.join("\n", java.util.Arrays.copyOfRange(lines, start, next)) + "\n");
            at = start;
        }
        return outputs;
    }

    /** The lines from the last prompt line with {@code command} before the marker's line to it, or null. */
    private static String between(String screen, String command, String marker) {
        String[] lines = screen.split("\n");
        int end = lines.length - 1;
        while (end >= 0 && !lines[end].equals(marker)) {
            end--;
        }
        int start = end - 1;
        while (start >= 0 && !lines[start].stripTrailing().equals(("g! " + command).stripTrailing())) {
            start--;
        }
        if (start < 0) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        for (int i = start; i < end; i++) {
            out.append(lines[i]).append('\n');
        }
        return out.toString();
    }

    /**
     * Types {@code keys} (tmux's names) once the line editor waits at its prompt, the command before
     * ended: JLine draws the prompt after it has put the terminal in raw mode, where Ctrl-D is a key
     * it reads; typed while a command still runs, the terminal's canonical mode would take Ctrl-D as
     * an end of file no read waits for.
     */
    void keysAtThePrompt(Duration timeout, String... keys) throws IOException, InterruptedException {
        command("echo at-the-prompt", timeout);
        awaitLastLine("the g! prompt", timeout, line -> line.equals("g!"));
        keys(keys);
    }

    /** The appliance's JVM (a child of the shell tmux runs in its pane). */
    ProcessHandle jvm() throws IOException, InterruptedException {
        long shell = Long.parseLong(tmux("display-message", "-p", "-t", "ipoib", "#{pane_pid}").strip());
        return ProcessHandle.of(shell).stream().flatMap(ProcessHandle::descendants)
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false)).findFirst()
                .orElseThrow(() -> new AssertionError("no java process in the tmux pane"));
    }

    /** Waits for the appliance to end; returns its exit status. */
    int awaitExit(Duration timeout) throws IOException {
        Path status = directory.resolve("status");
        Await.until("the appliance to end", timeout, POLL, () -> {
            try {
                return Files.exists(status) && Files.readString(status).endsWith("\n");
            } catch (IOException e) {
                return false;
            }
        }, () -> "; the screen:\n" + screen());
        return Integer.parseInt(Files.readString(status).strip());
    }

    @Override
    public void close() throws IOException, InterruptedException {
        new ProcessBuilder("tmux", "-L", socket, "kill-server").start().waitFor();
        try (var files = Files.walk(directory)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
