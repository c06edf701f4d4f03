package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a real Linux tool and collects its exit status and output. */
final class Sh {
    private Sh() {}

    record Result(int status, String output) {
        Result ok(String what) {
            if (status != 0) {
                throw new AssertionError(what + " exited " + status + ":\n" + output);
            }
            return this;
        }
    }

    /** Runs {@code command} (no shell), waits at most {@code timeoutSeconds}. */
    static Result run(long timeoutSeconds, String... command) throws IOException, InterruptedException {
        File log = File.createTempFile("netdev-sh", ".out");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError(String.join(" ", command) + " did not end within " + timeoutSeconds
                        + " s:\n" + Files.readString(log.toPath(), StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readString(log.toPath(), StandardCharsets.UTF_8));
        } finally {
            log.delete();
        }
    }

    /** Waits until a TCP socket listens on {@code port} in namespace {@code ns} (asked of {@code ss}). */
    static void awaitListening(String ns, int port, long timeoutSeconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (!run(10, in(ns, "ss", "-Hltn", "sport = :" + port)).output().contains("LISTEN")) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("nothing listens on port " + port + " in " + ns + " after " + timeoutSeconds + " s");
            }
            // Each probe starts a process: poll a few times a second, not in a spin.
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** Starts {@code command} in the background with its output in {@code log}. */
    static Process start(File log, String... command) throws IOException {
        return new ProcessBuilder(List.of(command)).redirectErrorStream(true).redirectOutput(log)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    }

    /** {@code ip netns exec NETNS COMMAND...} */
    static String[] in(String netns, String... command) {
        String[] all = new String[command.length + 4];
        all[0] = "ip";
        all[1] = "netns";
        all[2] = "exec";
        all[3] = netns;
        System.arraycopy(command, 0, all, 4, command.length);
        return all;
    }
}
