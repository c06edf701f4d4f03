package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;

/**
 * Class data sharing for the appliances the tests fork: the classes one appliance loaded
 * (the JDK's, Felix's and the bundles' own, which the JVM matches by name and content when a
 * bundle's class loader defines them) are archived once, and every later fork maps the archive
 * instead of parsing and verifying them again, about a tenth of a start's CPU.
 *
 * <p>The first fork is started with {@code -XX:ArchiveClassesAtExit}, to a file of its own, and
 * writes the archive when it ends; once no process is running with that option, the file is
 * moved to its place, and the forks started after that use it ({@code -XX:SharedArchiveFile}).
 * A fork killed before it wrote the archive leaves none, and the next fork makes it. The archive
 * is named after the appliance jar (path, size, time) and the JDK: it is only valid with them.
 * The JVM's CDS messages are off: a fork's output is what the tests read.
 */
final class SharedClassArchive {
    private SharedClassArchive() {}

    /** Checksums written and checked: an archive cut short (its fork killed while writing it) is not used. */
    private static final List<String> QUIET = List.of("-XX:+VerifySharedSpaces", "-Xlog:cds*=off", "-Xlog:aot*=off");
    private static int made;
    /** Whether the archives of other jars (earlier builds) have been removed, once per test JVM. */
    private static boolean swept;
    /** The file the training fork writes; null when none is running. */
    private static Path training;

    /**
     * The options of the next fork: use the archive, or make it (when {@code mayMake}: a fork that
     * ends long before the test JVM, so that the others get the archive), or neither.
     */
    static synchronized List<String> options(boolean mayMake) {
        File jar = new File(System.getProperty("appliance.jar", "missing"));
        if (!jar.isFile()) {
            return List.of();
        }
        Path archive = directory().resolve("appliance-" + Integer.toHexString(List.of(jar.getAbsolutePath(), jar.length(),
                jar.lastModified(), System.getProperty("java.home"), Runtime.version().toString()).hashCode()) + ".jsa");
        if (!swept) {
            sweep(archive.getFileName().toString());
            swept = true;
        }
        if (Files.isRegularFile(archive)) {
            return join("-XX:SharedArchiveFile=" + archive);
        }
        if (training != null && running("-XX:ArchiveClassesAtExit=" + training)) {
            return QUIET;
        }
        training = null;
        // Written by a fork that has ended, of this test JVM or an earlier one (the fork that made it may
        // have lived until its JVM ended); a fork killed before it wrote one left none.
        Path written = written(archive.getFileName() + ".");
        if (written != null) {
            move(written, archive);
            return join("-XX:SharedArchiveFile=" + archive);
        }
        if (!mayMake) {
            return QUIET;
        }
        training = directory().resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + "." + (++made) + ".part");
        return join("-XX:ArchiveClassesAtExit=" + training);
    }

    /** Removes what earlier builds' jars left (about 23 MB each); a fork still mapping one keeps its mapping. */
    private static void sweep(String current) {
        try (var files = Files.list(directory())) {
            for (Path f : files.filter(f -> !f.getFileName().toString().startsWith(current)).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A part file of this archive that no running process is writing, or null. */
    private static Path written(String prefix) {
        try (var files = Files.list(directory())) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix) && f.toString().endsWith(".part"))
                    .filter(f -> !running("-XX:ArchiveClassesAtExit=" + f)).findFirst().orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> join(String option) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(option), QUIET.stream()).toList();
    }

    /** Whether a process runs with this argument (the fork itself, or the JVM that ./ipoib became). */
    private static boolean running(String argument) {
        return ProcessHandle.allProcesses().anyMatch(p -> p.info().arguments()
                .map(a -> Arrays.asList(a).contains(argument)).orElse(false));
    }

    private static Path directory() {
        Path dir = Path.of(System.getProperty("basedir", "."), "target", "appliance-cds");
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
