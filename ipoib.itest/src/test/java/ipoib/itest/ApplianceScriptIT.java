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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The appliance jar as a user runs it: script mode runs every command after start-up and exits
 * 0, or exits 1 at the first failing command and prints that command and its error.
 *
 * <p>Two appliances, each run to its end, because how a run ends is what is tested: a script
 * file that runs to its end (its output is checked by most tests here), and commands piped into
 * {@code ./ipoib} through a pipe the test keeps open, each run as its line arrives, until one
 * fails (in an appliance without the default interfaces, which also shows what
 * {@code ipoib.defaults=false} does). Only the script file's appliance has the default
 * interfaces: the other's commands do not need them. They share nothing (each has its own console
 * port and home) and run at the same time, so that both cores of the machines stay busy until the
 * last ends. What does not need a process of its own is tested elsewhere: the error of a command
 * that throws, an unknown command, {@code exit} with and without a status (its status is the
 * runner's, which the JVM exits with as it does with a failure's 1 here), {@code start} by
 * symbolic name, on Gogo's runtime in {@code ScriptRunnerTest}; how {@code ./ipoib} passes a
 * script from a pipe or a process substitution ({@code ./ipoib --script <(...)}) and names it in
 * errors, with a stand-in appliance in {@code IpoibProgressIT}.
 */
public class ApplianceScriptIT {

    @ClassRule
    public static final TemporaryFolder TMP = new TemporaryFolder();

    /** The script file run once for the tests that read its output; each command's output is checked by one test. */
    private static final String SCRIPT = String.join("\n",
            "cm:listConfigurations '(service.factoryPid=ipoib.link)'",
            "# as soon as the defaults are up, they ping each other",
            "ipoib:await all 30",
            "ipoib:ping -c 3 -i 0.2 10.0.0.2",
            "ipoib:addr await",
            "ipoib:ping -c 2 -i 0.2 -I ib0_1_ffff fe80::202:c903:0:201",
            "ipoib:neigh",
            "# list bundles",
            "lb",
            "echo done",
            "ipoib:links",
            "ipoib:providers",
            "headers ipoib.arp",
            "update ipoib.arp",
            "stop ipoib.arp",
            "start ipoib.arp",
            "lb ipoib.arp",
            "ipoib:ping -c 1 -W 5 10.0.0.2",
            "fabric:pkeys loop0/1 0xffff 0x8001",
            // On one line, as a user types it: the interface's component is not there yet when await starts.
            "ipoib:create loop0 1 0x8001 ; ipoib:await all 30",
            "");

    private static File appliance;
    private static Run script;
    private static Future<Run> piped;
    /** Runs the appliance other than the script file's. */
    private static final ExecutorService FORKS = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ApplianceScriptIT-forks");
        t.setDaemon(true);
        return t;
    });

    record Run(int status, String out, String err) {
        /** What the command printed: from its {@code g!} line to the next prompt. */
        String after(String command) {
            String prompt = "g! " + command + "\n";
            int at = out.indexOf(prompt);
            assertTrue("'" + command + "' ran:\n" + out, at >= 0);
            int from = at + prompt.length();
            int next = out.indexOf("g! ", from);
            return out.substring(from, next < 0 ? out.length() : next);
        }
    }

    /** Starts the appliances; this thread runs the script file, with the project's log messages at INFO. */
    @BeforeClass
    public static void runTheAppliances() throws Exception {
        appliance = IpoibCommand.appliance();
        piped = FORKS.submit(ApplianceScriptIT::pipedUntilACommandFails);
        script = runScript(SCRIPT, "-Dipoib.log.level=INFO");
    }

    @AfterClass
    public static void stopWaiting() {
        FORKS.shutdownNow();
    }

    private static Run runScript(String text, String... properties) throws IOException, InterruptedException {
        Path file = TMP.newFile("test.gosh").toPath();
        Files.writeString(file, text, StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(ApplianceJvm.options());
        // A home of its own: the console password file is this appliance's alone.
        command.addAll(List.of("-Dorg.osgi.service.http.port=0", "-Duser.home=" + TMP.newFolder(), "-Dipoib.script=" + file,
                "-Dgosh.args=--nointeractive --noshutdown"));
        command.addAll(List.of(properties));
        command.addAll(List.of("-jar", appliance.getPath()));
        File out = TMP.newFile();
        File err = TMP.newFile();
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out).redirectError(err).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("appliance did not exit within 120 s; output: " + Files.readString(out.toPath()));
        }
        return new Run(process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
    }

    /**
     * Commands piped into {@code ./ipoib} through a pipe that stays open (the test writes the lines),
     * in an appliance without the default interfaces: the first command runs before the rest are
     * written; the defaults' bundle is listed never started and there is no interface;
     * {@code start} takes a symbolic name as {@code stop} does; {@code ipoib:await all} fails, as
     * there is no interface, which ends the run with status 1 before the next command.
     */
    private static Run pipedUntilACommandFails() throws Exception {
        try (IpoibCommand ipoib = IpoibCommand.start(java.util.Map.of(), List.of("-Dipoib.defaults=false"))) {
            ipoib.send("echo first\n");
            // Fails unless the command runs now, not when the writer closes the pipe.
            ipoib.awaitOut("g! echo first\nfirst\n", 60);
            ipoib.send("lb -s ipoib.defaults\nipoib:links\nstop ipoib.arp\nstart ipoib.arp\nlb ipoib.arp\n"
                    + "ipoib:await all 1\necho never\n");
            int status = ipoib.awaitExit(60);
            return new Run(status, ipoib.out(), ipoib.err());
        }
    }

    private static Run result(Future<Run> run) throws Exception {
        try {
            return run.get(180, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError failure) {
                throw failure;
            }
            throw e;
        }
    }

    @Test
    public void scriptSeesEveryBundleActiveAndExitsZero() {
        assertEquals("exit status; stderr: " + script.err(), 0, script.status());
        String lb = script.after("lb");
        Matcher bundleLine = Pattern.compile("^\\s*(\\d+)\\|(\\w+)\\s*\\|", Pattern.MULTILINE).matcher(lb);
        int bundles = 0;
        while (bundleLine.find()) {
            bundles++;
            assertEquals("bundle " + bundleLine.group(1) + " in\n" + lb, "Active", bundleLine.group(2));
        }
        assertTrue("lb listed the runtime and the project bundles:\n" + lb, bundles >= 12);
        assertTrue(lb, lb.contains("ipoib.api"));
        assertTrue(lb, lb.contains("Apache Felix Gogo Shell"));
        assertTrue("commands after lb ran too:\n" + script.out(), script.out().contains("g! echo done\ndone"));
    }

    /** The Configurator stores the defaults on its own thread: the first command already sees them. */
    @Test
    public void theDefaultConfigurationsAreStoredBeforeTheFirstCommand() {
        String stored = script.after("cm:listConfigurations '(service.factoryPid=ipoib.link)'");
        assertTrue(stored, stored.contains("PID=ipoib.link~default-loop0") && stored.contains("PID=ipoib.link~default-loop1"));
    }

    @Test
    public void defaultInterfacesComeUpAndBothProvidersAreListed() {
        String links = script.after("ipoib:links");
        assertTrue(links, links.contains("ib0_1_ffff: UP"));
        assertTrue(links, links.contains("ib1_1_ffff: UP"));
        assertTrue(links, links.contains("mtu 2044  qkey 0x00000b1b"));
        String providers = script.after("ipoib:providers");
        assertTrue(providers, providers.contains("loopback: available"));
        // These machines have no RDMA devices: the hardware provider says so, with the reason.
        assertTrue(providers, providers.contains("fabric: ") && providers.contains("no RDMA devices"));
    }

    @Test
    public void theDefaultInterfacesPingEachOtherRightAfterStart() {
        String v4 = script.after("ipoib:ping -c 3 -i 0.2 10.0.0.2");
        assertTrue(v4, v4.contains("PING 10.0.0.2 from 10.0.0.1 ib0_1_ffff"));
        assertTrue(v4, v4.contains("3 packets transmitted, 3 received, 0% packet loss"));
        String neigh = script.after("ipoib:neigh");
        assertTrue(neigh, neigh.contains("RESOLVED"));
        assertTrue(script.out(), script.out().contains("fe80::202:c903:0:101/64"));
        String v6 = script.after("ipoib:ping -c 2 -i 0.2 -I ib0_1_ffff fe80::202:c903:0:201");
        assertTrue("IPv6 link-local over ND right after start:\n" + v6,
                v6.contains("2 packets transmitted, 2 received, 0% packet loss"));
    }

    @Test
    public void awaitAllWaitsForAnInterfaceJustCreated() {
        String afterCreate = script.after("ipoib:create loop0 1 0x8001 ; ipoib:await all 30");
        assertTrue(afterCreate, afterCreate.contains("ib0_1_8001 UP"));
    }

    @Test
    public void updateOfAProjectBundleTakesTheJarFromTheWorkspace() throws Exception {
        // After update, stop and start (by symbolic name) ipoib.arp resolves the peer again.
        assertTrue(script.out(), script.out().matches("(?s).*g! lb ipoib.arp\n.*\\|Active\\s*\\|.*ipoib\\.arp.*"));
        String ping = script.after("ipoib:ping -c 1 -W 5 10.0.0.2");
        assertTrue(ping, ping.contains("1 packets transmitted, 1 received"));
        // update reads the jar the module's build writes in the workspace.
        File workspaceJar = new File(appliance.getCanonicalFile().getParentFile().getParentFile().getParentFile(),
                "ipoib.arp/target").listFiles((dir, name) -> name.matches("ipoib\\.arp-[0-9.]+(-SNAPSHOT)?\\.jar"))[0];
        String headers = script.after("headers ipoib.arp");
        assertTrue(headers, headers.contains("Bundle-UpdateLocation = " + workspaceJar.toURI()));
    }

    @Test
    public void logLevelInfoShowsTheProjectsMessagesWithoutFrameworkEvents() {
        assertTrue(script.err(), script.err().contains("INFO ipoib.verbs.loopback: loopback fabric up"));
        // Not even while a bundle is updated and an interface is created.
        assertFalse(script.err(), script.err().contains("ServiceEvent"));
        assertFalse(script.err(), script.err().contains("BundleEvent"));
    }

    @Test
    public void failingCommandStopsTheScriptWithItsError() throws Exception {
        Run run = result(piped);
        assertEquals("stdout:\n" + run.out() + "\nstderr: " + run.err(), 1, run.status());
        assertTrue(run.out(), run.out().contains("g! echo first\nfirst"));
        assertFalse("the script stops at the failure:\n" + run.out(), run.out().contains("g! echo never"));
        // Piped commands are named stdin in errors.
        assertTrue(run.err(), run.err().contains("ipoib: stdin line 7: command failed: ipoib:await all 1"));
    }

    /**
     * The switch of the appliance's default interfaces: they are the Configurator JSON of the
     * {@code ipoib.defaults} bundle, and {@code ipoib.defaults=false} keeps that bundle from ever
     * starting, so the Configurator never applies them.
     */
    @Test
    public void withDefaultsFalseTheirBundleNeverStartsAndNoInterfaceIsMade() throws Exception {
        Run run = result(piped);
        String bundle = run.after("lb -s ipoib.defaults");
        assertTrue(bundle, Pattern.compile("\\|Resolved\\s*\\|\\s*15\\|ipoib\\.defaults[ |]").matcher(bundle).find());
        String links = run.after("ipoib:links");
        assertTrue(links, links.contains("no IPoIB interfaces"));
    }

    @Test
    public void awaitAllWithoutInterfacesSaysThereAreNone() throws Exception {
        Run run = result(piped);
        assertTrue(run.err(), run.err().contains("no IPoIB interfaces within 1 s (create one with ipoib:create)"));
    }

    /** Piped commands run as their lines arrive (the first before the rest were written); start by symbolic name. */
    @Test
    public void pipedCommandsRunAsTheirLinesArriveAndStartTakesASymbolicName() throws Exception {
        Run run = result(piped);
        assertTrue(run.out(), run.out().contains("g! stop ipoib.arp\n") && run.out().contains("g! start ipoib.arp\n"));
        assertTrue(run.out(), run.out().matches("(?s).*g! lb ipoib.arp\n.*\\|Active\\s*\\|.*ipoib\\.arp.*"));
    }
}
