package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * As a user sees it: the appliance with its defaults, the ports taken DOWN
 * and UP again while {@code ipoib:capture} records ib0_1_ffff; tshark reads the capture. The Router
 * Solicitation that ND sends to ff02::2 goes out within seconds of the UP although no router
 * (no member of ff02::2) exists, because the send-only join is a SendOnlyFullMember join that
 * creates the group (the loopback SA advertises it in ClassPortInfo, as OpenSM 3.3.23 does);
 * {@code ipoib:ping ff02::1%ib0_1_ffff} is answered by the other host; the interface stays a
 * FullMember of 224.0.0.1. One appliance runs both halves, with and without the SA's
 * SendOnlyFullMember support, each with its own capture.
 */
public class SendOnlyJoinIT {

    @ClassRule
    public static final TemporaryFolder tmp = new TemporaryFolder();

    private static File appliance;
    private static Seen withSupport;
    private static Seen withoutSupport;

    @BeforeClass
    public static void runTheApplianceOnce() throws Exception {
        appliance = new File(System.getProperty("appliance.jar", "missing"));
        assertTrue("appliance jar built by ipoib.appliance: " + appliance, appliance.isFile());
        Seen[] both = upWithCapture(true, false);
        withSupport = both[0];
        withoutSupport = both[1];
    }

    private record Run(int status, String out, String err) {}

    private static Run run(List<String> command) throws IOException, InterruptedException {
        File out = tmp.newFile();
        File err = tmp.newFile();
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out).redirectError(err).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command.get(0) + " did not exit within 120 s; output: "
                    + Files.readString(out.toPath()));
        }
        return new Run(process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
    }

    private static Run tshark(Path capture, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("tshark", "-r", capture.toString()));
        command.addAll(List.of(arguments));
        try {
            return run(command);
        } catch (IOException e) {
            fail("tshark is not installed: install the Debian package tshark (./ipoib test installs it): " + e);
            return null;
        }
    }

    /** What one run of the appliance showed: its output and tshark's fields of the capture. */
    private record Seen(String out, List<String[]> frames, Path capture) {}

    /**
     * Runs the appliance once; for each setting of the SA's SendOnlyFullMember support, in turn:
     * both ports DOWN (the SM forgets their memberships, so ff02::2 is gone) and UP again while
     * ib0_1_ffff is captured, the support set first; then an all-nodes ping and {@code ipoib:mcast}.
     * What each half printed is cut at the next half's first command.
     */
    private static Seen[] upWithCapture(boolean... sendOnlyFullMember) throws Exception {
        Path captures = tmp.newFolder().toPath();
        Files.setPosixFilePermissions(captures, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        List<String> lines = new ArrayList<>(List.of("ipoib:await all 30"));
        List<Path> files = new ArrayList<>();
        for (boolean support : sendOnlyFullMember) {
            Path capture = captures.resolve("ib0-" + support + ".pcapng");
            files.add(capture);
            lines.addAll(List.of(
                    "fabric:sa sendOnlyFullMember " + support,
                    "ipoib:capture ib0_1_ffff " + capture + " 1000",
                    "fabric:down loop0/1",
                    "fabric:down loop1/1",
                    "fabric:up loop0/1",
                    "fabric:up loop1/1",
                    "ipoib:await all 30",
                    "ipoib:addr await",
                    "ipoib:ping -c 3 -i 1 -W 5 'ff02::1%ib0_1_ffff'",
                    "ipoib:capture ib0_1_ffff stop",
                    "ipoib:mcast ib0_1_ffff"));
        }
        lines.add("");
        Path script = tmp.newFile().toPath();
        Files.writeString(script, String.join("\n", lines), StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Run run = run(List.of(java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-Dorg.osgi.service.http.port=0", "-Dipoib.script=" + script, "-Dipoib.capture.dir=" + captures,
                "-Dgosh.args=--nointeractive --noshutdown", "-jar", appliance.getPath()));
        assertEquals("exit status; stdout:\n" + run.out() + "\nstderr: " + run.err(), 0, run.status());
        Seen[] seen = new Seen[sendOnlyFullMember.length];
        int from = 0;
        for (int i = 0; i < seen.length; i++) {
            int next = i + 1 < seen.length
                    ? run.out().indexOf("g! fabric:sa sendOnlyFullMember " + sendOnlyFullMember[i + 1], from)
                    : run.out().length();
            assertTrue("the output of each half:\n" + run.out(), next >= from);
            String out = run.out().substring(from, next);
            from = next;
            assertTrue("the other host answers the all-nodes ping:\n" + out,
                    out.contains("3 packets transmitted, 3 received, 0% packet loss"));
            assertTrue(out, out.contains("from fe80::202:c903:0:201"));
            Run fields = tshark(files.get(i), "-T", "fields", "-E", "separator=|", "-e", "frame.time_relative",
                    "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "icmpv6.type");
            assertEquals(fields.err(), 0, fields.status());
            List<String[]> frames = fields.out().lines().map(l -> l.split("\\|", -1)).filter(f -> f.length >= 4)
                    .toList();
            Run malformed = tshark(files.get(i), "-Y", "_ws.malformed || _ws.expert.severity >= \"warning\"");
            assertEquals("no malformed frames or warnings:\n" + malformed.out(), "", malformed.out().strip());
            seen[i] = new Seen(out, frames, files.get(i));
        }
        return seen;
    }

    /** The time of the first frame matching, relative to the capture's first frame, if one matches. */
    private static OptionalDouble first(List<String[]> frames, java.util.function.Predicate<String[]> which) {
        return frames.stream().filter(which).mapToDouble(f -> Double.parseDouble(f[0])).findFirst();
    }

    private static String text(List<String[]> frames) {
        return frames.stream().map(f -> String.join(" ", f)).collect(java.util.stream.Collectors.joining("\n"));
    }

    @Test
    public void aRouterSolicitationGoesOutSoonAfterUpAndAllNodesAnswerAPing() throws Exception {
        Seen seen = withSupport;
        String mcast = seen.out().substring(seen.out().indexOf("g! ipoib:mcast ib0_1_ffff"));
        assertTrue("ff02::2 joined as SendOnlyFullMember:\n" + mcast,
                Pattern.compile("ff12:601b:ffff::2\\s+ff02::2\\s+MLID 0x\\p{XDigit}+ SendOnlyFullMember\\s+SEND_ONLY .*JOINED")
                        .matcher(mcast).find());
        assertTrue("all-hosts joined as FullMember:\n" + mcast,
                Pattern.compile("224\\.0\\.0\\.1\\s+MLID 0x\\p{XDigit}+ FullMember\\s+LISTENER .*JOINED").matcher(mcast).find());
        // tshark's reading of the capture: the DAD probe (from ::) marks the UP; the RS follows.
        OptionalDouble dad = first(seen.frames(), f -> f[1].equals("::") && f[3].equals("135"));
        OptionalDouble rs = first(seen.frames(), f -> f[3].equals("133") && f[2].equals("ff02::2"));
        assertTrue("a DAD Neighbor Solicitation after the UP:\n" + text(seen.frames()), dad.isPresent());
        assertTrue("a Router Solicitation to ff02::2 on the wire:\n" + text(seen.frames()), rs.isPresent());
        double after = rs.getAsDouble() - dad.getAsDouble();
        assertTrue("the RS " + after + " s after the DAD probe:\n" + text(seen.frames()), after < 5.0);
        assertTrue("the RS comes from the link-local address", seen.frames().stream().filter(f -> f[3].equals("133"))
                .allMatch(f -> f[1].equals("fe80::202:c903:0:101")));
        Run summary = tshark(seen.capture(), "-Y", "icmpv6.type == 133");
        assertTrue(summary.out(), summary.out().contains("Router Solicitation"));
    }

    @Test
    public void withoutSendOnlyFullMemberTheRouterSolicitationToAnAbsentGroupIsDropped() throws Exception {
        // The contrast (RFC 4391 §10 with a SendOnlyNonMember join): no member of ff02::2, so the
        // group does not exist, and a link-local group has no all-routers fallback.
        Seen seen = withoutSupport;
        String mcast = seen.out().substring(seen.out().indexOf("g! ipoib:mcast ib0_1_ffff"));
        assertTrue("ff02::2 absent:\n" + mcast, Pattern.compile("ff12:601b:ffff::2\\s+ff02::2\\s.*ABSENT")
                .matcher(mcast).find());
        assertTrue("the DAD probe is there:\n" + text(seen.frames()),
                first(seen.frames(), f -> f[1].equals("::") && f[3].equals("135")).isPresent());
        assertTrue("no Router Solicitation on the wire:\n" + text(seen.frames()),
                first(seen.frames(), f -> f[3].equals("133")).isEmpty());
    }
}
