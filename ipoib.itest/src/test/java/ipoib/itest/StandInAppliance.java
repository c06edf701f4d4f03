package ipoib.itest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * A stand-in for the appliance jar, for the tests of what {@code ./ipoib} does around the
 * appliance ({@link IpoibProgressIT}, {@link ApplianceSignalIT}): it does what the appliance does
 * with a script, in short: prints the web console's address line as the appliance does at start
 * (and, started by {@code --hosts}, the hosts it was given), then reads the script (the file
 * {@code ipoib.script} names, or stdin for {@code -}) and echoes each line after {@code g! } (and
 * the text of an {@code echo}); a line {@code fail} fails as a command does, its error naming the
 * script as the appliance names it ({@code ipoib.script.name}, else the file's name), and ends the
 * run with status 1. Its JVM's shutdown hooks, which remove the appliance's namespaces, say that
 * they ran ({@link #SHUTDOWN_HOOKS_RAN}) however it ends.
 */
public final class StandInAppliance {
    private StandInAppliance() {}

    /** The line the stand-in's shutdown hook prints. */
    static final String SHUTDOWN_HOOKS_RAN = "stand-in: shutdown hooks ran";

    public static void main(String[] args) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println(SHUTDOWN_HOOKS_RAN)));
        System.out.println("ipoib: web console at http://127.0.0.1:0/system/console/ipoib (stand-in)");
        if (System.getProperty("ipoib.hosts") != null) {
            System.out.println("stand-in: ipoib.hosts=" + System.getProperty("ipoib.hosts")
                    + " ipoib.defaults=" + System.getProperty("ipoib.defaults"));
        }
        String script = System.getProperty("ipoib.script");
        boolean stdin = script.equals("-");
        String name = System.getProperty("ipoib.script.name", stdin ? "stdin" : String.valueOf(Path.of(script).getFileName()));
        try (BufferedReader lines = stdin ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(script), StandardCharsets.UTF_8)) {
            int number = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                number++;
                System.out.println("g! " + line);
                if (line.startsWith("echo ")) {
                    System.out.println(line.substring(5));
                } else if (line.equals("fail")) {
                    System.err.println("ipoib: " + name + " line " + number + ": command failed: fail");
                    System.exit(1);
                }
            }
        }
    }

    /** The stand-in's jar, made once per test JVM. */
    private static Path jar;

    /**
     * A jar of this class as the test build compiled it (javac in the test JVM would cost about
     * 2 s of CPU).
     */
    static synchronized Path jar() throws IOException {
        if (jar != null) {
            return jar;
        }
        String entry = StandInAppliance.class.getName().replace('.', '/') + ".class";
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, StandInAppliance.class.getName());
        Path made = Files.createTempDirectory("ipoib-stand-in-").resolve("ipoib.jar");
        try (InputStream in = StandInAppliance.class.getClassLoader().getResourceAsStream(entry);
                JarOutputStream out = new JarOutputStream(Files.newOutputStream(made), manifest)) {
            if (in == null) {
                throw new IllegalStateException("the stand-in's class " + entry + " is not on the class path");
            }
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        jar = made;
        return made;
    }
}
