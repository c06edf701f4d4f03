package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code ./ipoib test} on a fresh machine: it installs the Debian packages its tests need when
 * it runs as root, stops at once with the exact install command otherwise, and leaves the
 * appliance built so that the next {@code ./ipoib} does not rebuild. The script runs in a copy
 * of the workspace with stand-ins for dpkg-query, id, sudo, apt-get and mvn on the PATH that
 * record how they were called (installing packages for real is what CI does).
 */
public class IpoibTestSetupIT {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path workspace;
    private Path stubs;
    private Path calls;

    record Run(int status, String out, String err) {}

    @Before
    public void copyTheScript() throws IOException {
        File appliance = new File(System.getProperty("appliance.jar", "missing"));
        Path real = appliance.getAbsoluteFile().toPath().getParent().getParent().getParent().resolve("ipoib");
        assertTrue("the ipoib script next to the appliance module: " + real, Files.isRegularFile(real));
        workspace = tmp.newFolder("workspace").toPath();
        Files.copy(real, workspace.resolve("ipoib"));
        Files.createDirectories(workspace.resolve("ipoib.appliance/target"));
        stubs = tmp.newFolder("stubs").toPath();
        calls = tmp.newFile("calls.log").toPath();
        // A Maven that "builds" the appliance jar and prints a test summary line.
        stub("mvn", "echo \"mvn $*\" >> \"$CALLS\"\n"
                + "touch ipoib.appliance/target/ipoib.jar\n"
                + "echo '[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0'\n");
        stub("apt-get", "echo \"apt-get $*\" >> \"$CALLS\"\n");
        stub("debconf-set-selections", "cat >/dev/null\n");
        stub("sudo", "exit 1\n");
    }

    private void stub(String name, String body) throws IOException {
        Path file = stubs.resolve(name);
        Files.writeString(file, "#!/usr/bin/env bash\n" + body, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** dpkg-query reports the named packages missing, every other one installed. */
    private void missing(String... packages) throws IOException {
        stub("dpkg-query", "for p in " + String.join(" ", packages) + "; do [ \"${@: -1}\" = \"$p\" ] && exit 1; done\n"
                + "echo -n 'install ok installed'\n");
    }

    private void userId(int id) throws IOException {
        stub("id", "echo " + id + "\n");
    }

    private Run ipoib(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("bash", workspace.resolve("ipoib").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(workspace.toFile());
        builder.environment().put("PATH", stubs + File.pathSeparator + System.getenv("PATH"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("CALLS", calls.toString());
        builder.environment().remove("IPOIB_APPLIANCE");
        File out = tmp.newFile();
        File err = tmp.newFile();
        Process process = builder.redirectOutput(out).redirectError(err)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        assertTrue("ipoib " + String.join(" ", args) + " ended", process.waitFor(60, TimeUnit.SECONDS));
        return new Run(process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
    }

    @Test
    public void withoutRootItStopsAtOnceWithTheInstallCommand() throws Exception {
        missing("tshark", "opensm", "iperf3");
        userId(1000);
        Run run = ipoib("test");
        assertEquals("stderr: " + run.err(), 2, run.status());
        assertTrue(run.err(), run.err().contains("the tests need Debian packages that are not installed: tshark opensm iperf3"));
        assertTrue(run.err(), run.err().contains(
                "sudo apt-get update && sudo apt-get install -y --no-install-recommends tshark opensm iperf3"));
        assertEquals("neither apt-get nor Maven ran", "", Files.readString(calls));
    }

    @Test
    public void asRootItInstallsWhatIsMissingAndLeavesTheApplianceBuilt() throws Exception {
        missing("socat", "curl");
        userId(0);
        Run run = ipoib("test");
        assertEquals("stderr: " + run.err(), 0, run.status());
        assertTrue(run.err(), run.err().contains("ipoib: installing the Debian packages the tests need: socat curl"));
        String log = Files.readString(calls);
        assertTrue(log, log.contains("apt-get install -y -qq --no-install-recommends socat curl"));
        assertTrue(log, log.contains("clean verify"));
        assertTrue(run.out(), run.out().contains("unit tests (JUnit 5, jqwik)"));

        Path script = tmp.newFile("empty.gosh").toPath();
        Run second = ipoib("--script", script.toString());
        String after = Files.readString(calls);
        assertEquals("the next ./ipoib does not rebuild the appliance:\n" + after + second.err(), 1,
                after.lines().filter(l -> l.startsWith("mvn")).count());
    }
}
