package ipoib.itest.console;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The appliance jar as a user starts it ({@code java -jar ipoib.jar}), its Gogo shell driven
 * through stdin: each command is followed by an echo of a marker, and its output is what stdout
 * shows up to the marker.
 */
final class RunningAppliance implements AutoCloseable {
    private static final Pattern ADDRESS = Pattern.compile("ipoib: web console at (http://\\S+?)/system/console/ipoib ");
    private static final Pattern CREDENTIALS = Pattern.compile("ipoib: web console user '([^']+)', password '([^']+)' "
            + "\\(kept in (\\S+),");

    private final Process process;
    private final StringBuffer out = new StringBuffer();
    private final StringBuffer err = new StringBuffer();
    private final OutputStream stdin;
    private final AtomicInteger markers = new AtomicInteger();
    private final Path home;

    private RunningAppliance(Process process, Path home) {
        this.process = process;
        this.home = home;
        this.stdin = process.getOutputStream();
        pump(process.getInputStream(), out);
        pump(process.getErrorStream(), err);
    }

    private static void pump(InputStream in, StringBuffer to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    to.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException closed) {
                // The process ended.
            }
        }, "appliance-output");
        t.setDaemon(true);
        t.start();
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static RunningAppliance start(int port, String... extraProperties) throws IOException {
        File appliance = new File(System.getProperty("appliance.jar", "missing"));
        if (!appliance.isFile()) {
            throw new AssertionError("appliance jar built by ipoib.appliance: " + appliance);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Its own home: the console password is generated for this appliance alone.
        Path home = Files.createTempDirectory("ipoib-appliance-home-");
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Dorg.osgi.service.http.port=" + port,
                "-Duser.home=" + home));
        for (String p : extraProperties) {
            command.add("-D" + p);
        }
        command.add("-jar");
        command.add(appliance.getPath());
        return new RunningAppliance(new ProcessBuilder(command).start(), home);
    }

    /** The console's base address as the appliance printed it at start (waits for the line). */
    String baseUrl() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            Matcher m = ADDRESS.matcher(err);
            if (m.find()) {
                return m.group(1);
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the appliance did not print the console's address within 90 s; stderr:\n" + err
                + "\nstdout:\n" + out);
    }

    /** The home directory the appliance was started with (its generated password lives under it). */
    Path home() {
        return home;
    }

    /** The console's generated credentials as the appliance printed them at start: user, password, file. */
    String[] printedCredentials() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            Matcher m = CREDENTIALS.matcher(err);
            if (m.find()) {
                return new String[] {m.group(1), m.group(2), m.group(3)};
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the appliance did not print the console's credentials within 90 s; stderr:\n" + err);
    }

    /** The Authorization header of the generated credentials. */
    String authorization() throws InterruptedException {
        String[] c = printedCredentials();
        return basic(c[0], c[1]);
    }

    static String basic(String user, String password) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** Runs one Gogo command and returns its output. */
    synchronized String shell(String command) throws IOException, InterruptedException {
        String marker = "__done_" + markers.incrementAndGet() + "__";
        int from = out.length();
        stdin.write((command + "\necho " + marker + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            int at = out.indexOf(marker, from);
            if (at >= 0) {
                return out.substring(from, at);
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("'" + command + "' did not finish within 90 s; output so far:\n" + out.substring(from)
                + "\nstderr:\n" + err);
    }

    String stderr() {
        return err.toString();
    }

    @Override
    public void close() throws IOException {
        try {
            stdin.write("exit 0\n".getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException alreadyGone) {
            // The shell ended already.
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.walk(home)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
