package ipoib.itest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The names of the JVM's live threads, virtual ones included: the per-interface loops run on
 * virtual threads, which {@code Thread.getAllStackTraces()} and {@code ThreadMXBean} do not see.
 * The JDK's JSON thread dump lists every thread of every thread container; it is asked for through
 * the platform MBean server because a test bundle does not see {@code com.sun.management}.
 */
final class LiveThreads {
    private static final Pattern NAME = Pattern.compile("\"name\": \"((?:[^\"\\\\]|\\\\.)*)\"");

    private LiveThreads() {}

    /** Names of the live threads whose name starts with one of {@code prefixes}, sorted (a multiset). */
    static List<String> named(String... prefixes) {
        List<String> names = new ArrayList<>();
        for (String name : all()) {
            for (String prefix : prefixes) {
                if (name.startsWith(prefix)) {
                    names.add(name);
                    break;
                }
            }
        }
        names.sort(null);
        return names;
    }

    private static List<String> all() {
        try {
            Path dir = Files.createTempDirectory("ipoib-threads");
            Path dump = dir.resolve("threads.json");
            try {
                ManagementFactory.getPlatformMBeanServer().invoke(
                        new ObjectName("com.sun.management:type=HotSpotDiagnostic"), "dumpThreads",
                        new Object[] {dump.toString(), "JSON"}, new String[] {String.class.getName(), String.class.getName()});
                List<String> names = new ArrayList<>();
                Matcher m = NAME.matcher(Files.readString(dump));
                while (m.find()) {
                    names.add(m.group(1));
                }
                return names;
            } finally {
                Files.deleteIfExists(dump);
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not dump the JVM's threads", e);
        } catch (JMException e) {
            throw new IllegalStateException("could not dump the JVM's threads", e);
        }
    }
}
