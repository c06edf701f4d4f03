package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code ./ipoib} as a controlling program runs it: from the workspace of the appliance jar under
 * test, its stdin a pipe the test writes lines to (and may keep open), its stdout and stderr in
 * files read while it runs.
 */
final class IpoibCommand implements AutoCloseable {
    private final Process process;
    private final OutputStream in;
    private final File out;
    private final File err;

    private IpoibCommand(Process process, File out, File err) {
        this.process = process;
        this.in = process.getOutputStream();
        this.out = out;
        this.err = err;
    }

    /** Starts {@code ./ipoib ARGS...} with the appliance jar the build made (no rebuild). */
    static IpoibCommand start(String... args) throws IOException {
        File appliance = new File(System.getProperty("appliance.jar", "missing"));
        if (!appliance.isFile()) {
            throw new IllegalStateException("appliance jar built by ipoib.appliance: " + appliance);
        }
        File workspace = appliance.getAbsoluteFile().getParentFile().getParentFile().getParentFile();
        List<String> command = new java.util.ArrayList<>(List.of(new File(workspace, "ipoib").getPath()));
        command.addAll(List.of(args));
        File out = File.createTempFile("ipoib-command", ".out");
        File err = File.createTempFile("ipoib-command", ".err");
        out.deleteOnExit();
        err.deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace)
                .redirectOutput(out).redirectError(err);
        builder.environment().put("IPOIB_APPLIANCE", appliance.getAbsolutePath());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("IPOIB_JAVA_OPTS", "-Dorg.osgi.service.http.port=0");
        return new IpoibCommand(builder.start(), out, err);
    }

    /** The process ./ipoib became (it execs the JVM). */
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
    void awaitOut(String expected, long timeoutSeconds) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!out().contains(expected)) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new AssertionError("no '" + expected + "' on stdout within " + timeoutSeconds + " s (alive: "
                        + process.isAlive() + "); stdout:\n" + out() + "\nstderr:\n" + err());
            }
            // The output is a file: look a few times a second.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
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
        if (process.isAlive()) {
            // Leaves as a user does, so that what it made is removed.
            try {
                in.close();
            } catch (IOException ignored) {
                // Already gone.
            }
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
        out.delete();
        err.delete();
    }
}
