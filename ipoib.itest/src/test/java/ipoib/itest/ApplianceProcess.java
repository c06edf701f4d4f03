package ipoib.itest;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The appliance jar run as a user runs it, at its Gogo prompt: commands are typed on its standard
 * input and each answer is read up to a marker the test echoes after it.
 */
final class ApplianceProcess implements AutoCloseable {
    private final Process process;
    private final OutputStream in;
    private final StringBuilder out = new StringBuilder();
    private final AtomicInteger markers = new AtomicInteger();
    private final Thread pump;

    ApplianceProcess(String... properties) throws IOException {
        this(List.of(), properties);
    }

    /**
     * The appliance run through {@code prefix} (e.g. setpriv dropping a capability), with framework
     * properties, on the default JVM with the shared class archive.
     */
    ApplianceProcess(List<String> prefix, String... properties) throws IOException {
        this(prefix, SharedClassArchive.options(), properties);
    }

    /**
     * An appliance that lives for a few commands, not for traffic: with {@link ApplianceJvm#SHORT_LIVED}'s
     * compiler and collector, which save most of a start's CPU, and the shared class archive.
     */
    static ApplianceProcess shortLived(String... properties) throws IOException {
        return new ApplianceProcess(List.of(), ApplianceJvm.shortLivedShared(), properties);
    }

    /** {@link #shortLived(String...)} run through {@code prefix}. */
    static ApplianceProcess shortLived(List<String> prefix, String... properties) throws IOException {
        return new ApplianceProcess(prefix, ApplianceJvm.shortLivedShared(), properties);
    }

    private ApplianceProcess(List<String> prefix, List<String> jvmOptions, String... properties) throws IOException {
        File jar = new File(System.getProperty("appliance.jar", "missing"));
        if (!jar.isFile()) {
            throw new IllegalStateException("appliance jar built by ipoib.appliance: " + jar);
        }
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
        command.addAll(jvmOptions);
        for (String p : properties) {
            command.add("-D" + p);
        }
        command.addAll(List.of("-jar", jar.getPath()));
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
        in = process.getOutputStream();
        pump = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (out) {
                        out.append(line).append('\n');
                        out.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // The process ended.
            }
        });
    }

    long pid() {
        return process.pid();
    }

    /** Everything the appliance printed so far. */
    String output() {
        synchronized (out) {
            return out.toString();
        }
    }

    /** Types a command and returns what it printed (up to the marker echoed after it). */
    String command(String command, long timeoutSeconds) throws IOException, InterruptedException {
        String marker = "__done_" + markers.incrementAndGet() + "__";
        int start;
        synchronized (out) {
            start = out.length();
        }
        in.write((command + "\necho " + marker + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        synchronized (out) {
            while (true) {
                int at = out.indexOf(marker + "\n", start);
                while (at >= 0) {
                    // The marker's own line, not the shell echoing the typed command.
                    int lineStart = out.lastIndexOf("\n", at) + 1;
                    if (!out.substring(lineStart, at).contains("echo")) {
                        return out.substring(start, lineStart);
                    }
                    at = out.indexOf(marker + "\n", at + 1);
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive()) {
                    throw new AssertionError("no answer to '" + command + "' within " + timeoutSeconds
                            + " s; output so far:\n" + out.substring(start));
                }
                out.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    /** Runs a command until its output contains {@code expected}, polling; fails with the last output. */
    String awaitCommand(String command, String expected, long timeoutSeconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        String last;
        do {
            last = command(command, timeoutSeconds);
            if (last.contains(expected)) {
                return last;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("'" + command + "' did not show '" + expected + "' within " + timeoutSeconds
                + " s; last output:\n" + last);
    }

    /** Exits as a user does ({@code exit 0}) and waits for the process. */
    int exit(long timeoutSeconds) throws IOException, InterruptedException {
        if (process.isAlive()) {
            try {
                in.write("exit 0\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            } catch (IOException alreadyClosed) {
                // The process is ending.
            }
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("appliance did not exit within " + timeoutSeconds + " s");
        }
        pump.join(5000);
        return process.exitValue();
    }

    /** Ends the process as {@code kill -9} does. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            exit(60);
        }
    }
}
