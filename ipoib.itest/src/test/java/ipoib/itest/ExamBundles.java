package ipoib.itest;

import static org.ops4j.pax.exam.CoreOptions.bootDelegationPackage;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.frameworkStartLevel;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.ops4j.pax.exam.Constants;
import org.ops4j.pax.exam.Option;

/**
 * Pax Exam's own bundles in the framework under test, installed by reference from the local Maven
 * repository. Pax Exam's test system names them as {@code link:} URLs, which pax-url-aether
 * resolves with a new Maven resolver per bundle and Felix copies into the fresh storage of every
 * test class's framework; {@code exam.properties} turns that list off ({@code pax.exam.system =
 * default}) and these options stand in for it. The bundles and versions are Pax Exam's: read from
 * its link files ({@code pax-exam-link-mvn}), the list as {@code PaxExamRuntime}'s default test
 * system options and {@code CoreOptions.junitBundles()} give it. A bundle not in the local
 * repository keeps its {@code link:} URL, so pax-url still fetches it on a fresh machine.
 */
final class ExamBundles {
    /** Started before the test bundles, at Pax Exam's system start level. */
    private static final String[] SYSTEM = {
        "org.ops4j.pax.exam", "org.ops4j.pax.exam.inject", "org.ops4j.pax.extender.service",
        "org.ops4j.pax.logging.api", "org.ops4j.base", "org.ops4j.pax.swissbox.core",
        "org.ops4j.pax.swissbox.extender", "org.ops4j.pax.swissbox.framework",
        "org.ops4j.pax.swissbox.lifecycle", "org.ops4j.pax.swissbox.tracker", "jakarta.inject-api"};
    /** JUnit and the invoker that runs the probe's tests in the framework. */
    private static final String[] JUNIT = {
        "org.apache.servicemix.bundles.junit", "org.apache.servicemix.bundles.hamcrest",
        "org.ops4j.pax.exam.invoker.junit"};

    private ExamBundles() {}

    /** What Pax Exam's test system adds to every configuration, with local bundles by reference. */
    static Option options() {
        List<Option> options = new ArrayList<>();
        options.add(bootDelegationPackage("sun.*"));
        options.add(frameworkStartLevel(Constants.START_LEVEL_TEST_BUNDLE));
        for (String name : SYSTEM) {
            options.add(bundle(location(name)).startLevel(Constants.START_LEVEL_SYSTEM_BUNDLES));
        }
        for (String name : JUNIT) {
            options.add(bundle(location(name)));
        }
        // The probe's tests run through JUnit (with @Before and @After), not the plain invoker.
        options.add(systemProperty("pax.exam.invoker").value("junit"));
        return composite(options.toArray(Option[]::new));
    }

    /** The bundle's jar in the local repository by reference, or else its link: URL. */
    static String location(String linkName) {
        String link = "META-INF/links/" + linkName + ".link";
        Path jar = localJar(mavenUrl(link));
        return Files.isRegularFile(jar) ? "reference:" + jar.toUri() : "link:classpath:" + link;
    }

    /** A link file's content: one {@code mvn:group/artifact/version} URL. */
    private static String mavenUrl(String link) {
        try (InputStream in = ExamBundles.class.getClassLoader().getResourceAsStream(link)) {
            if (in == null) {
                throw new IllegalStateException("Pax Exam's link file " + link
                        + " is not on the class path (pax-exam-link-mvn, a test dependency of ipoib.itest)");
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where Maven keeps {@code mvn:group/artifact/version}: group/as/path/artifact/version/artifact-version.jar. */
    static Path localJar(String mavenUrl) {
        String[] gav = mavenUrl.substring("mvn:".length()).split("/");
        if (!mavenUrl.startsWith("mvn:") || gav.length != 3) {
            throw new IllegalStateException("not a mvn:group/artifact/version URL: " + mavenUrl);
        }
        String repository = System.getProperty("org.ops4j.pax.url.mvn.localRepository",
                System.getProperty("user.home") + "/.m2/repository");
        return Path.of(repository, gav[0].split("\\."))
                .resolve(gav[1]).resolve(gav[2]).resolve(gav[1] + "-" + gav[2] + ".jar");
    }
}
