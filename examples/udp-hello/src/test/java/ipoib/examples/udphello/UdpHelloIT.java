package ipoib.examples.udphello;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The example as its user meets it: the exported udp-hello.jar (Felix, the stack, the example's
 * bundle, no shell) started with java -jar; its greetings leave ib0_1_ffff (HCA loop0) and arrive
 * on ib1_1_ffff (loop1), so they crossed the loopback fabric. And its two bndruns resolved as
 * promised: implementations picked, no Gogo.
 */
class UdpHelloIT {
    private static final Pattern RECEIVED =
            Pattern.compile("udp-hello: received 'hello (\\d+)' from 10\\.0\\.0\\.1:7000 on ib1_1_ffff");

    @Test
    void greetingsCrossTheFabricFromIb0ToIb1() throws Exception {
        Path jar = Path.of(System.getProperty("udp-hello.jar", "target/udp-hello.jar"));
        assertTrue(Files.isRegularFile(jar), "exported by the build: " + jar);
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                // A JVM that lives for seconds: C1 only and the serial collector (C2 compiles took about half of
                // a start's CPU and never paid back).
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar.toString()).redirectErrorStream(true).start();
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ended) {
                // The process ended.
            }
        });
        List<String> seen = new ArrayList<>();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            Matcher received = null;
            while (received == null && System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line == null) {
                    assertTrue(process.isAlive(), "udp-hello ended early:\n" + String.join("\n", seen));
                    continue;
                }
                seen.add(line);
                Matcher m = RECEIVED.matcher(line);
                if (m.find()) {
                    received = m;
                }
            }
            String output = String.join("\n", seen);
            assertTrue(received != null, "no greeting arrived on ib1_1_ffff within 60 s:\n" + output);
            String sent = "udp-hello: sent 'hello " + received.group(1) + "' to 10.0.0.2:7000 on ib0_1_ffff";
            assertTrue(output.contains(sent), "it left ib0_1_ffff (" + sent + "):\n" + output);
            assertTrue(output.contains("udp-hello: ib0_1_ffff UP") && output.contains("udp-hello: ib1_1_ffff UP"),
                    "the link events reached the component:\n" + output);
            assertTrue(seen.stream().noneMatch(l -> l.contains("Exception") || l.contains("[DEBUG]")),
                    "nothing but the example's lines:\n" + output);
        } finally {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void bothRunsResolveImplementationsAndNoShell() throws IOException {
        Path dir = Path.of(System.getProperty("udp-hello.bndruns", "."));
        List<String> plain = runBundles(dir.resolve("udp-hello.bndrun"));
        List<String> active = runBundles(dir.resolve("udp-hello-active.bndrun"));
        for (List<String> run : List.of(plain, active)) {
            for (String implementation : List.of("org.apache.felix.log", "org.apache.felix.configadmin",
                    "org.apache.felix.scr", "org.apache.felix.configurator", "ipoib.verbs.loopback", "udp-hello")) {
                assertTrue(run.contains(implementation), implementation + " resolved: " + run);
            }
            assertTrue(run.stream().noneMatch(b -> b.startsWith("org.apache.felix.gogo")), "headless: " + run);
        }
        assertEquals(plain, active, "the services the bundles need ask for nothing the requirements did not bring");
    }

    /** The symbolic names of a resolved bndrun's -runbundles. */
    private static List<String> runBundles(Path bndrun) throws IOException {
        String text = Files.readString(bndrun).replace("\\\n", "");
        Matcher m = Pattern.compile("(?m)^-runbundles:(.*)$").matcher(text);
        assertTrue(m.find(), "resolved by the build (no -runbundles in " + bndrun + ")");
        List<String> names = new ArrayList<>();
        Matcher name = Pattern.compile("(?:^|,)\\s*([A-Za-z][\\w.-]*);version=").matcher(m.group(1));
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }
}
