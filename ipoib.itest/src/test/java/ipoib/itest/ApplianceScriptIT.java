package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The appliance jar as a user runs it: script mode runs every command after start-up and exits
 * 0, or exits 1 at the first failing command and prints that command and its error.
 */
public class ApplianceScriptIT {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static File appliance;

    @BeforeClass
    public static void findAppliance() {
        appliance = new File(System.getProperty("appliance.jar", "missing"));
        assertTrue("appliance jar built by ipoib.appliance: " + appliance, appliance.isFile());
    }

    record Run(int status, String out, String err) {}

    private Run runScript(String script, String... jvmOptions) throws IOException, InterruptedException {
        Path file = tmp.newFile().toPath();
        Files.writeString(file, script, StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-Dipoib.script=" + file,
                "-Dgosh.args=--nointeractive --noshutdown"));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-jar", appliance.getPath()));
        return run(new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))));
    }

    /** Runs a bash command line in the workspace, where ./ipoib runs the appliance jar under test. */
    private Run runIpoib(String bashCommand) throws IOException, InterruptedException {
        File workspace = appliance.getAbsoluteFile().getParentFile().getParentFile().getParentFile();
        ProcessBuilder builder = new ProcessBuilder(List.of("bash", "-c", bashCommand)).directory(workspace);
        builder.environment().put("IPOIB_APPLIANCE", appliance.getAbsolutePath());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return run(builder);
    }

    private Run run(ProcessBuilder builder) throws IOException, InterruptedException {
        File out = tmp.newFile();
        File err = tmp.newFile();
        Process process = builder.redirectOutput(out).redirectError(err).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("appliance did not exit within 120 s; output: " + Files.readString(out.toPath()));
        }
        return new Run(process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
    }

    @Test
    public void scriptSeesEveryBundleActiveAndExitsZero() throws Exception {
        Run run = runScript("# list bundles\nlb\necho done\n");
        assertEquals("exit status; stderr: " + run.err(), 0, run.status());
        Matcher bundleLine = Pattern.compile("^\\s*(\\d+)\\|(\\w+)\\s*\\|", Pattern.MULTILINE).matcher(run.out());
        int bundles = 0;
        while (bundleLine.find()) {
            bundles++;
            assertEquals("bundle " + bundleLine.group(1) + " in\n" + run.out(), "Active", bundleLine.group(2));
        }
        assertTrue("lb listed the runtime and the project bundles:\n" + run.out(), bundles >= 12);
        assertTrue(run.out().contains("ipoib.api"));
        assertTrue(run.out().contains("Apache Felix Gogo Shell"));
        assertTrue("commands after lb ran too:\n" + run.out(), run.out().contains("g! echo done\ndone"));
    }

    @Test
    public void defaultInterfacesComeUpAndBothProvidersAreListed() throws Exception {
        Run run = runScript("ipoib:await all 20\nipoib:links\nipoib:providers\n");
        assertEquals("exit status; stderr: " + run.err(), 0, run.status());
        assertTrue(run.out(), run.out().contains("ib0_1_ffff: UP"));
        assertTrue(run.out(), run.out().contains("ib1_1_ffff: UP"));
        assertTrue(run.out(), run.out().contains("mtu 2044  qkey 0x00000b1b"));
        assertTrue(run.out(), run.out().contains("loopback: available"));
        // These machines have no RDMA devices: the hardware provider says so, with the reason.
        assertTrue(run.out(), run.out().contains("fabric: ") && run.out().contains("no RDMA devices"));
    }

    @Test
    public void failingCommandStopsTheScriptWithItsError() throws Exception {
        Run run = runScript("echo first\nnosuch:command arg\necho never\n");
        assertEquals(1, run.status());
        assertTrue(run.out().contains("first"));
        assertFalse("the script stops at the failure:\n" + run.out(), run.out().contains("g! echo never"));
        assertTrue(run.err(), run.err().contains("line 2: command failed: nosuch:command arg"));
        assertTrue(run.err(), run.err().contains("Command not found: nosuch:command"));
    }

    @Test
    public void exceptionFromACommandIsReportedWithItsMessage() throws Exception {
        // A Java method call that throws: the exception's message is the reported error.
        Run run = runScript("'abc' substring 5\n");
        assertEquals(1, run.status());
        assertTrue(run.err(), run.err().contains("command failed: 'abc' substring 5"));
        assertTrue(run.err(), run.err().contains("out of bounds for length 3"));
    }

    @Test
    public void theDefaultInterfacesPingEachOtherRightAfterStart() throws Exception {
        Run run = runScript("ipoib:await all\nipoib:ping -c 3 10.0.0.2\nipoib:addr await\n"
                + "ipoib:ping -c 2 -i 0.2 -I ib0_1_ffff fe80::202:c903:0:201\nipoib:neigh\n");
        assertEquals("exit status; stdout:\n" + run.out() + "\nstderr: " + run.err(), 0, run.status());
        assertTrue(run.out(), run.out().contains("PING 10.0.0.2 from 10.0.0.1 ib0_1_ffff"));
        assertTrue(run.out(), run.out().contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(run.out(), run.out().contains("RESOLVED"));
        assertTrue("IPv6 link-local over ND right after start:\n" + run.out(),
                run.out().contains("2 packets transmitted, 2 received, 0% packet loss"));
        assertTrue(run.out(), run.out().contains("fe80::202:c903:0:101/64"));
    }

    @Test
    public void aScriptFromAPipeRunsAndPipedErrorsNameStdin() throws Exception {
        Run piped = runIpoib("./ipoib --script <(printf 'echo from-a-pipe\\n')");
        assertEquals("exit status; stderr: " + piped.err(), 0, piped.status());
        assertTrue(piped.out(), piped.out().contains("g! echo from-a-pipe\nfrom-a-pipe"));

        Run stdin = runIpoib("printf 'echo first\\nnosuch:command\\n' | ./ipoib");
        assertEquals("stderr: " + stdin.err(), 1, stdin.status());
        assertTrue(stdin.err(), stdin.err().contains("ipoib: stdin line 2: command failed: nosuch:command"));
    }

    @Test
    public void pipedCommandsRunAsTheyArriveAndExitEndsWithItsStatus() throws Exception {
        try (IpoibCommand ipoib = IpoibCommand.start()) {
            // The pipe stays open: the command runs now, not when the writer closes it.
            ipoib.send("ipoib:await all 30\necho first\n");
            ipoib.awaitOut("g! echo first\nfirst\n", 60);
            // start takes a symbolic name as stop does.
            ipoib.send("stop ipoib.arp\nstart ipoib.arp\nlb ipoib.arp\nipoib:ping -c 1 -W 5 10.0.0.2\nexit 3\necho never\n");
            assertEquals("stdout:\n" + ipoib.out() + "\nstderr: " + ipoib.err(), 3, ipoib.awaitExit(60));
            String out = ipoib.out();
            assertTrue(out, out.matches("(?s).*g! lb ipoib.arp\n.*\\|Active\\s*\\|.*ipoib\\.arp.*"));
            assertTrue(out, out.contains("1 packets transmitted, 1 received"));
            assertFalse(out, out.contains("g! echo never"));
        }
    }

    @Test
    public void exitLeavesAPipeAndAScriptWithItsStatus() throws Exception {
        Run piped = runIpoib("printf 'ipoib:links\\nexit 0\\n' | ./ipoib");
        assertEquals("stdout:\n" + piped.out() + "\nstderr: " + piped.err(), 0, piped.status());
        assertTrue(piped.out(), piped.out().contains("g! exit 0"));

        Run script = runScript("echo before\nexit 3\necho after\n");
        assertEquals("stderr: " + script.err(), 3, script.status());
        assertTrue(script.out(), script.out().contains("g! echo before\nbefore"));
        assertFalse(script.out(), script.out().contains("g! echo after"));
    }

    @Test
    public void awaitAllWithoutInterfacesSaysThereAreNone() throws Exception {
        Run run = runScript("ipoib:await all 1\n", "-Dipoib.defaults=false");
        assertEquals(1, run.status());
        assertTrue(run.err(), run.err().contains("no IPoIB interfaces within 1 s (create one with ipoib:create)"));
    }

    @Test
    public void awaitAllWaitsForAnInterfaceJustCreated() throws Exception {
        // On one line, as a user types it: the interface's component is not there yet when await starts.
        Run run = runScript("ipoib:await all 30\nfabric:pkeys loop0/1 0xffff 0x8001\n"
                + "ipoib:create loop0 1 0x8001 ; ipoib:await all 30\n");
        assertEquals("exit status; stderr: " + run.err(), 0, run.status());
        String afterCreate = run.out().substring(run.out().indexOf("g! ipoib:create"));
        assertTrue(afterCreate, afterCreate.contains("ib0_1_8001 UP"));
    }

    @Test
    public void updateOfAProjectBundleTakesTheJarFromTheWorkspace() throws Exception {
        Run run = runScript("ipoib:await all 30\n"
                + "headers ipoib.arp\n"
                + "update ipoib.arp\n"
                + "lb ipoib.arp\n"
                + "ipoib:ping -c 1 -W 5 10.0.0.2\n");
        assertEquals("exit status; stdout:\n" + run.out() + "\nstderr: " + run.err(), 0, run.status());
        assertTrue(run.out(), run.out().matches("(?s).*g! lb ipoib.arp\n.*\\|Active\\s*\\|.*ipoib\\.arp.*"));
        assertTrue(run.out(), run.out().contains("1 packets transmitted, 1 received"));
        // update reads the jar the module's build writes in the workspace.
        File workspaceJar = new File(appliance.getCanonicalFile().getParentFile().getParentFile().getParentFile(),
                "ipoib.arp/target").listFiles((dir, name) -> name.matches("ipoib\\.arp-[0-9.]+(-SNAPSHOT)?\\.jar"))[0];
        assertTrue(run.out(), run.out().contains("Bundle-UpdateLocation = " + workspaceJar.toURI()));
    }

    @Test
    public void logLevelInfoShowsTheProjectsMessagesWithoutFrameworkEvents() throws Exception {
        Run run = runScript("ipoib:await all 30\n", "-Dipoib.log.level=INFO");
        assertEquals("exit status; stderr: " + run.err(), 0, run.status());
        assertTrue(run.err(), run.err().contains("INFO ipoib.verbs.loopback: loopback fabric up"));
        assertFalse(run.err(), run.err().contains("ServiceEvent"));
        assertFalse(run.err(), run.err().contains("BundleEvent"));
    }
}
