package ipoib.itest;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Class data sharing for the appliances the tests fork: the classes one appliance loaded
 * (the JDK's, Felix's and the bundles' own, which the JVM matches by name and content when a
 * bundle's class loader defines them) are archived once, and every later fork maps the archive
 * instead of parsing and verifying them again, about a tenth of a start's CPU.
 *
 * <p>The archive is made by a fork of its own, before the first fork that would use it (or beside
 * it, for a fork that starts without it: {@link #optionsWithoutWaiting()}): the
 * appliance started with {@code -XX:ArchiveClassesAtExit} and a script that stops the framework
 * ({@code stop 0}), after which bnd's launcher exits with its status for a stopped framework. The
 * archive is written while the JVM exits, and the JDK (25.0.3) crashes when another thread resolves
 * a lambda meanwhile (SIGSEGV in {@code LambdaProxyClassDictionary::find_lambda_proxy_class}, status
 * 134; seen in 4 of 7 appliances that exited with their loops running: a virtual thread's
 * {@code VirtualThread.afterYield}, the loopback SA's thread). Once the framework has stopped, no
 * bundle's thread runs; and no test's fork writes the archive, so none ends with a status its
 * test does not expect. The archive is used only when its training ended as planned; a training
 * that fails leaves none, and the forks start without one.
 * The archive is named after the appliance jar (path, size, time) and the JDK: it is only valid
 * with them. The JVM's CDS messages are off: a fork's output is what the tests read.
 */
final class SharedClassArchive {
    private SharedClassArchive() {}

    /** Checksums written and checked: an archive cut short (its fork killed while writing it) is not used. */
    private static final List<String> QUIET = List.of("-XX:+VerifySharedSpaces", "-Xlog:cds*=off", "-Xlog:aot*=off");
    /** How long the training fork may take: one start and exit of the appliance on a loaded machine. */
    private static final long TRAINING_SECONDS = 300;
    /** Whether the archives of other jars (earlier builds) have been removed, once per test JVM. */
    private static boolean swept;
    /**
     * The training fork of this test JVM, once started: whether it wrote the archive. One at most:
     * after a failed training the forks start without an archive.
     */
    private static CompletableFuture<Boolean> training;

    /**
     * The options of the next fork: use the archive, made first by a training fork when there is
     * none (waiting for it); none when its training failed.
     */
    static List<String> options() {
        File jar = new File(System.getProperty("appliance.jar", "missing"));
        if (!jar.isFile()) {
            return List.of();
        }
        Path archive = archive(jar);
        if (Files.isRegularFile(archive)) {
            return join("-XX:SharedArchiveFile=" + archive);
        }
        return training(jar, archive).join() ? join("-XX:SharedArchiveFile=" + archive) : QUIET;
    }

    /**
     * The options of a fork that need not wait for the archive: the archive's when it is there;
     * otherwise none, and the training starts (unless it has) beside this fork, for the forks after
     * it. The first fork of a run so starts while the archive is made, instead of after it: on two
     * cores, about the time of one start instead of two.
     */
    static List<String> optionsWithoutWaiting() {
        File jar = new File(System.getProperty("appliance.jar", "missing"));
        if (!jar.isFile()) {
            return List.of();
        }
        Path archive = archive(jar);
        if (Files.isRegularFile(archive)) {
            return join("-XX:SharedArchiveFile=" + archive);
        }
        training(jar, archive);
        return QUIET;
    }

    /** The archive of {@code jar} in the archives' directory, the archives of other jars removed once. */
    private static synchronized Path archive(File jar) {
        Path archive = archive(directory(), jar);
        if (!swept) {
            sweep(archive.getFileName().toString());
            swept = true;
        }
        return archive;
    }

    /** The training of {@code archive}, started on a thread of its own unless it has been. */
    private static synchronized CompletableFuture<Boolean> training(File jar, Path archive) {
        if (training == null) {
            training = new CompletableFuture<>();
            Thread.ofPlatform().daemon().name("SharedClassArchive-training").start(() -> {
                try {
                    training.complete(train(jar, archive));
                } catch (RuntimeException | Error e) {
                    training.completeExceptionally(e);
                }
            });
        }
        return training;
    }

    /** The archive of {@code jar} in {@code dir}, named after the jar and the JDK. */
    static Path archive(Path dir, File jar) {
        return dir.resolve("appliance-" + Integer.toHexString(List.of(jar.getAbsolutePath(), jar.length(),
                jar.lastModified(), System.getProperty("java.home"), Runtime.version().toString()).hashCode()) + ".jsa");
    }

    /** bnd's launcher's exit status when the framework was stopped (LauncherConstants.STOPPED). */
    private static final int FRAMEWORK_STOPPED = 117;

    /**
     * Starts the appliance {@code jar} with a script that stops the framework, writing the classes
     * it loaded to {@code archive} at its exit; true when it ended so and wrote it. Its output is
     * kept next to the archive ({@code .log}) for when it fails.
     */
    static boolean train(File jar, Path archive) {
        Path dir = archive.getParent();
        Path part = dir.resolve(archive.getFileName() + "." + ProcessHandle.current().pid() + ".part");
        Path script = dir.resolve("stop.gosh");
        Path log = dir.resolve(archive.getFileName() + ".log");
        try {
            Files.writeString(script, "stop 0\n");
            List<String> command = new java.util.ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString()));
            command.addAll(ApplianceJvm.REQUIRED);
            command.addAll(ApplianceJvm.SHORT_LIVED);
            command.add("-XX:ArchiveClassesAtExit=" + part);
            command.addAll(QUIET);
            // The script runner leaves the exit to the launcher (ipoib.script.exit=false).
            command.addAll(List.of("-Dorg.osgi.service.http.port=0", "-Dipoib.script=" + script,
                    "-Dipoib.script.exit=false", "-Dgosh.args=--nointeractive --noshutdown", "-jar", jar.getPath()));
            Process training = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(log.toFile()).start();
            if (!training.waitFor(TRAINING_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                training.destroyForcibly().waitFor();
                Files.writeString(log, "\n(no exit within " + TRAINING_SECONDS + " s)\n",
                        java.nio.file.StandardOpenOption.APPEND);
                return false;
            }
            if (training.exitValue() != FRAMEWORK_STOPPED || !Files.isRegularFile(part)) {
                return false;
            }
            move(part, archive);
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            try {
                Files.deleteIfExists(part);
            } catch (IOException ignored) {
                // Removed with target/ at the next clean build.
            }
        }
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

    private static List<String> join(String option) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(option), QUIET.stream()).toList();
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
