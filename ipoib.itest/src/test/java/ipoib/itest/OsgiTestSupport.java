package ipoib.itest;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ops4j.pax.exam.Option;

/**
 * The runtime every Pax Exam test class starts: Felix with the same services as the appliance
 * (SCR, ConfigAdmin, Metatype, EventAdmin, Log, Gogo runtime) and the project's bundles, taken
 * from the reactor by path, and Pax Exam's own bundles ({@link ExamBundles}); every jar is
 * installed by reference. Extend {@link #runtime(String...)} with the bundles a test needs.
 */
public final class OsgiTestSupport {
    private OsgiTestSupport() {}

    /** The runtime services and the api bundle, plus the named project bundles. */
    public static Option runtime(String... projectBundles) {
        Option[] project = new Option[projectBundles.length];
        for (int i = 0; i < projectBundles.length; i++) {
            project[i] = reactorBundle(projectBundles[i]);
        }
        return composite(
                ExamBundles.options(),
                systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"),
                reactorBundle("promise"), reactorBundle("function"), reactorBundle("component"),
                reactorBundle("log"), reactorBundle("configadmin"), reactorBundle("metatype"),
                reactorBundle("eventadmin"), reactorBundle("scr"), reactorBundle("gogo.runtime"),
                reactorBundle("gogo.command"), reactorBundle("ipoib.api"),
                composite(project));
    }

    /**
     * The one configuration of the classes in {@link SharedFrameworkIT}, which share a framework:
     * the launcher (its script runner and commands, no console), the loopback and fabric
     * providers, the link, multicast, ARP, ND and host bundles, no default
     * interfaces, and a capture directory ({@link #captureDirectory()}). The same options on every
     * call, as Pax Exam's per-suite strategy starts the framework with the first class's.
     */
    public static Option[] sharedRuntime() {
        synchronized (OsgiTestSupport.class) {
            if (sharedCaptureDirectory == null) {
                sharedCaptureDirectory = captureDirectoryProperty();
            }
        }
        return new Option[] {
            runtime("ipoib.launcher", "ipoib.codec", "ipoib.verbs.loopback", "ipoib.verbs.fabric", "ipoib.link",
                    "ipoib.mcast", "ipoib.arp", "ipoib.nd", "ipoib.host"),
            systemProperty("ipoib.defaults").value("false"), sharedCaptureDirectory};
    }

    private static Option sharedCaptureDirectory;

    /**
     * A new capture directory (mode 0700) as the launch property {@code ipoib.capture.dir}: the
     * capture commands write only there. The test finds it with {@link #captureDirectory()}.
     */
    public static Option captureDirectoryProperty() {
        try {
            Path dir = Files.createTempDirectory("ipoib-captures-");
            return systemProperty("ipoib.capture.dir").value(dir.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The capture directory {@link #captureDirectoryProperty()} made. */
    public static Path captureDirectory() {
        return Path.of(System.getProperty("ipoib.capture.dir"));
    }

    /**
     * A bundle whose path the build passes as system property {@code bundle.<name>}, installed by
     * reference: Felix reads the jar where the build left it instead of copying it into the
     * framework's fresh storage, which every test class's framework would otherwise do again.
     */
    public static Option reactorBundle(String name) {
        String path = System.getProperty("bundle." + name);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException("bundle '" + name + "' not found: system property bundle." + name + "="
                    + path + " (run the tests through Maven: ./ipoib test)");
        }
        return bundle("reference:" + new File(path).toURI());
    }
}
