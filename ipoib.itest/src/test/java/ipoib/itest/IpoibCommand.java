package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./ipoib} as a controlling program runs it: from the workspace of the appliance jar under
 * test, its stdin a pipe the test writes lines to (and may keep open), its stdout and stderr in
 * files read while it runs. The JVM gets a free console port, a home of its own (its console
 * password file is its own) and {@link ApplianceJvm#SHORT_LIVED} through {@code IPOIB_JAVA_OPTS}.
 */
final class IpoibCommand implements AutoCloseable {
    private final Process process;
    private final OutputStream in;
    private final File out;
    private final File err;
    private final Path home;

    private IpoibCommand(Process process, File out, File err, Path home) {
        this.process = process;
        this.in = process.getOutputStream();
        this.out = out;
        this.err = err;
        this.home = home;
    }

    /** Starts {@code ./ipoib ARGS...} with the appliance jar the build made (no rebuild). */
    static IpoibCommand start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(new File(workspace(), "ipoib").getPath()));
        command.addAll(List.of(args));
        return start(command, List.of());
    }

    /**
     * Runs a bash command line in the workspace, where {@code ./ipoib} is the script under test
     * (for what only a shell writes: {@code <(...)}, {@code printf ... | ./ipoib}); the JVM it
     * starts gets {@code javaOptions} too.
     */
    static IpoibCommand bash(String commandLine, String... javaOptions) throws IOException {
        return start(List.of("bash", "-c", commandLine), List.of(javaOptions));
    }

    /** {@code ./ipoib ARGS...} with more environment variables and options for its JVM. */
    static IpoibCommand start(java.util.Map<String, String> environment, List<String> javaOptions, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(List.of(new File(workspace(), "ipoib").getPath()));
        command.addAll(List.of(args));
        return start(command, javaOptions, environment);
    }

    /**
     * {@link #start(java.util.Map, List, String...)} with SIGHUP, SIGINT and SIGTERM at their default
     * action, as in a shell at a terminal, whatever the test JVM inherited: a background job of a
     * shell without job control (a CI script's {@code mvn ... &}) starts with SIGINT ignored, every
     * process it starts inherits that, and the JVM then leaves the signal ignored rather than
     * ending on it (coreutils' {@code env --default-signal}).
     */
    static IpoibCommand startWithDefaultSignals(java.util.Map<String, String> environment, List<String> javaOptions,
                                                String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=HUP,INT,TERM",
                new File(workspace(), "ipoib").getPath()));
        command.addAll(List.of(args));
        return start(command, javaOptions, environment);
    }

    /**
     * {@link #startWithDefaultSignals} with {@code jar} in the appliance's place (a
     * {@link StandInAppliance}): for what is {@code ./ipoib}'s, not the appliance's. Its JVM gets
     * {@link ApplianceJvm#SHORT_LIVED} only (the shared class archive is the appliance jar's).
     */
    static IpoibCommand standInWithDefaultSignals(File jar, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=HUP,INT,TERM",
                new File(workspace(), "ipoib").getPath()));
        command.addAll(List.of(args));
        return start(command, jar, ApplianceJvm.SHORT_LIVED, java.util.Map.of());
    }

    private static IpoibCommand start(List<String> command, List<String> javaOptions) throws IOException {
        return start(command, javaOptions, java.util.Map.of());
    }

    private static IpoibCommand start(List<String> command, List<String> javaOptions,
                                      java.util.Map<String, String> environment) throws IOException {
        List<String> options = new ArrayList<>(ApplianceJvm.shortLivedShared());
        options.addAll(javaOptions);
        return start(command, appliance(), options, environment);
    }

    private static IpoibCommand start(List<String> command, File appliance, List<String> javaOptions,
                                      java.util.Map<String, String> environment) throws IOException {
        File out = File.createTempFile("ipoib-command", ".out");
        File err = File.createTempFile("ipoib-command", ".err");
        out.deleteOnExit();
        err.deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace())
                .redirectOutput(out).redirectError(err);
        builder.environment().putAll(environment);
        builder.environment().put("IPOIB_APPLIANCE", appliance.getAbsolutePath());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Path home = Files.createTempDirectory("ipoib-command-home-");
        List<String> options = new ArrayList<>(List.of("-Dorg.osgi.service.http.port=0", "-Duser.home=" + home));
        options.addAll(javaOptions);
        builder.environment().put("IPOIB_JAVA_OPTS", String.join(" ", options));
        return new IpoibCommand(builder.start(), out, err, home);
    }

    static File appliance() {
        File appliance = new File(System.getProperty("appliance.jar", "missing"));
        if (!appliance.isFile()) {
            throw new IllegalStateException("appliance jar built by ipoib.appliance: " + appliance);
        }
        return appliance;
    }

    /** The workspace the appliance jar was built in (its ./ipoib, its modules' jars). */
    static File workspace() {
        return appliance().getAbsoluteFile().getParentFile().getParentFile().getParentFile();
    }

    /** The process ./ipoib became (it execs the JVM; with --opensm it stays the JVM's parent). */
    long pid() {
        return process.pid();
    }

    /** Writes lines to its stdin, which stays open. */
    void send(String lines) throws IOException {
        in.write(lines.getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    String out() throws IOException {
        return Files.readString(out.toPath(), StandardCharsets.UTF_8);
    }

    String err() throws IOException {
        return Files.readString(err.toPath(), StandardCharsets.UTF_8);
    }

    /** Waits until stdout contains {@code expected}; fails with both outputs. */
    void awaitOut(String expected, long timeoutSeconds) {
        // The output is a file: look a few times a second.
        Await.until("'" + expected + "' on stdout", Duration.ofSeconds(timeoutSeconds), Duration.ofMillis(50),
                () -> read(out).contains(expected) || !process.isAlive(),
                () -> "(alive: " + process.isAlive() + "); stdout:\n" + read(out) + "\nstderr:\n" + read(err));
        if (!read(out).contains(expected)) {
            throw new AssertionError("./ipoib exited with " + process.exitValue() + " before '" + expected
                    + "' was on stdout; stdout:\n" + read(out) + "\nstderr:\n" + read(err));
        }
    }

    private static String read(File file) {
        try {
            return Files.readString(file.toPath(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for the exit; returns the status. */
    int awaitExit(long timeoutSeconds) throws IOException, InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            throw new AssertionError("./ipoib did not exit within " + timeoutSeconds + " s; stdout:\n" + out()
                    + "\nstderr:\n" + err());
        }
        return process.exitValue();
    }

    @Override
    public void close() throws Exception {
        // Leaves as a user does, so that what it made is removed; closed after the exit too, for
        // what still reads it (the cat of a process substitution).
        try {
            in.close();
        } catch (IOException ignored) {
            // Already gone.
        }
        if (process.isAlive() && !process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        out.delete();
        err.delete();
        try (var files = Files.walk(home)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
