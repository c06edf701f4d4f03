package ipoib.itest.console;

import ipoib.itest.ApplianceJvm;
import ipoib.itest.Await;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
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
 *
 * <p>{@link #shared} is one appliance for the test classes that can share it (each leaves it as
 * it found it): a start of the appliance is most of such a class's time.
 */
public final class RunningAppliance implements AutoCloseable {
    private static final Pattern ADDRESS = Pattern.compile("ipoib: web console at (http://\\S+?)/system/console/ipoib ");
    private static final Pattern CREDENTIALS = Pattern.compile("ipoib: web console user '([^']+)', password '([^']+)' "
            + "\\(kept in (\\S+),");

    private final Process process;
    private final StringBuffer out = new StringBuffer();
    private final StringBuffer err = new StringBuffer();
    private final OutputStream stdin;
    private final AtomicInteger markers = new AtomicInteger();
    private final Path home;
    private final int port;
    private Path captures;

    private static RunningAppliance shared;

    private RunningAppliance(Process process, Path home, int port) {
        this.process = process;
        this.home = home;
        this.port = port;
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
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(ApplianceJvm.optionsUntilTheEnd());
        command.addAll(List.of("-Dorg.osgi.service.http.port=" + port, "-Duser.home=" + home));
        for (String p : extraProperties) {
            command.add("-D" + p);
        }
        command.add("-jar");
        command.add(appliance.getPath());
        return new RunningAppliance(new ProcessBuilder(command).start(), home, port);
    }

    /**
     * The appliance the test classes share, started by the first that asks (with a capture
     * directory of its own, {@link #captures}) and stopped when the test JVM ends.
     */
    public static synchronized RunningAppliance shared() throws IOException {
        if (shared == null) {
            Path captures = Files.createTempDirectory("ipoib-shared-captures-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            RunningAppliance started = start(freePort(), "ipoib.capture.dir=" + captures);
            started.captures = captures;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                    try (var files = Files.walk(captures)) {
                        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                            Files.deleteIfExists(p);
                        }
                    }
                } catch (IOException e) {
                    System.err.println("stopping the shared appliance: " + e);
                }
            }, "shared-appliance-stop"));
            shared = started;
        }
        return shared;
    }

    /** The directory {@code ipoib:capture} may write to (the shared appliance's), or null. */
    public Path captures() {
        return captures;
    }

    /** The console's base address as the appliance printed it at start (waits for the line). */
    public String baseUrl() {
        Matcher m = ADDRESS.matcher("");
        Await.until("the console's address in the appliance's output", Duration.ofSeconds(90),
                () -> m.reset(err).find() || !process.isAlive(), () -> "stderr:\n" + err + "\nstdout:\n" + out);
        if (!m.reset(err).find()) {
            throw new AssertionError("the appliance ended without printing the console's address; stderr:\n" + err);
        }
        return m.group(1);
    }

    /**
     * The body of a GET of {@code path} from the loopback address with the generated credentials,
     * once it answers 200 (after the console's address line; {@link #baseUrl} waits for it): the
     * address line comes when the HTTP service runs, and the console's servlets (a whiteboard
     * registration each) may come a moment later, answering 404 until then. The first request of
     * a page also loads and compiles what serves it: a fixture asks early, off the scenarios' time.
     */
    String served(String path) {
        baseUrl();
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", authorization()).timeout(Duration.ofSeconds(60)).build();
        String[] last = {"no answer yet"};
        Await.until(path + " served", Duration.ofSeconds(90), Duration.ofMillis(50), () -> {
            try {
                java.net.http.HttpResponse<String> r = http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
                last[0] = r.statusCode() + " " + r.body();
                return r.statusCode() == 200;
            } catch (IOException e) {
                last[0] = e.toString();
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }, () -> "; last answer: " + last[0]);
        return last[0].substring(4);
    }

    /** The console's port the appliance was started with. */
    int port() {
        return port;
    }

    /** The home directory the appliance was started with (its generated password lives under it). */
    Path home() {
        return home;
    }

    /** The console's generated credentials as the appliance printed them at start: user, password, file. */
    String[] printedCredentials() {
        Matcher m = CREDENTIALS.matcher("");
        Await.until("the console's credentials in the appliance's output", Duration.ofSeconds(90),
                () -> m.reset(err).find() || !process.isAlive(), () -> "stderr:\n" + err);
        if (!m.reset(err).find()) {
            throw new AssertionError("the appliance ended without printing the console's credentials; stderr:\n" + err);
        }
        return new String[] {m.group(1), m.group(2), m.group(3)};
    }

    /** The Authorization header of the generated credentials. */
    String authorization() {
        String[] c = printedCredentials();
        return basic(c[0], c[1]);
    }

    static String basic(String user, String password) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    /** Runs one Gogo command and returns its output. */
    public synchronized String shell(String command) throws IOException {
        String marker = "__done_" + markers.incrementAndGet() + "__";
        int from = out.length();
        stdin.write((command + "\necho " + marker + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        Await.until("'" + command + "' to finish", Duration.ofSeconds(90),
                () -> out.indexOf(marker, from) >= 0 || !process.isAlive(),
                () -> "output so far:\n" + out.substring(from) + "\nstderr:\n" + err);
        int at = out.indexOf(marker, from);
        if (at < 0) {
            throw new AssertionError("the appliance ended during '" + command + "'; output:\n" + out.substring(from)
                    + "\nstderr:\n" + err);
        }
        return out.substring(from, at);
    }

    public String stderr() {
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
