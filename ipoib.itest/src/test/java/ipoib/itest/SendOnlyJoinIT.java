package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import ipoib.itest.console.RunningAppliance;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * As a user sees it: the appliance with its defaults, the ports taken DOWN
 * and UP again while {@code ipoib:capture} records ib0_1_ffff; tshark reads the capture. The Router
 * Solicitation that ND sends to ff02::2 goes out within seconds of the UP although no router
 * (no member of ff02::2) exists, because the send-only join is a SendOnlyFullMember join that
 * creates the group (the loopback SA advertises it in ClassPortInfo, as OpenSM 3.3.23 does);
 * {@code ipoib:ping ff02::1%ib0_1_ffff} is answered by the other host; the interface stays a
 * FullMember of 224.0.0.1. It runs on the appliance the console's test classes share, which it
 * leaves with the SA's SendOnlyFullMember support on and ND's RetransTimer at its default, as it
 * starts (meanwhile 100 ms, so that the addresses' DAD takes 0.1 s, not a second). The contrast, an SA without
 * that support (a SendOnlyNonMember join, the link-local group absent, the frame dropped), is
 * {@code SendOnlyFullMemberTest}'s on a manual clock and {@code MulticastIT}'s in a framework.
 */
public class SendOnlyJoinIT {

    @ClassRule
    public static final TemporaryFolder tmp = new TemporaryFolder();

    private static final Pattern SEND_ONLY_JOINED = Pattern.compile(
            "ff12:601b:ffff::2\\s+ff02::2\\s+MLID 0x\\p{XDigit}+ SendOnlyFullMember\\s+SEND_ONLY .*JOINED");
    private static final Pattern ALL_HOSTS_JOINED = Pattern.compile(
            "224\\.0\\.0\\.1\\s+MLID 0x\\p{XDigit}+ FullMember\\s+LISTENER .*JOINED");

    private static RunningAppliance appliance;
    private static Seen seen;

    @BeforeClass
    public static void downAndUpUnderCapture() throws Exception {
        appliance = RunningAppliance.shared();
        seen = upWithCapture();
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

    /** What the run showed: its output and tshark's fields of the capture. */
    private record Seen(String out, List<String[]> frames) {}

    /**
     * The SA's SendOnlyFullMember support on (as the appliance starts; set again in case a class
     * before left it off); both ports DOWN (the SM forgets their memberships, so ff02::2 is gone)
     * and UP again while ib0_1_ffff is captured; then an all-nodes ping and {@code ipoib:mcast}.
     * The output is the commands, each after {@code g! }, and what they printed. tshark reads the
     * capture twice at once: its fields (with the Info column) and the frames it finds malformed or
     * warns about.
     */
    private static Seen upWithCapture() throws Exception {
        String up = appliance.shell("ipoib:await all 30");
        assertTrue(up, up.contains("ib0_1_ffff UP") && up.contains("ib1_1_ffff UP"));
        Path capture = appliance.captures().resolve("ib0-" + System.nanoTime() + ".pcapng");
        StringBuilder printed = new StringBuilder();
        // ND's RetransTimer is DAD's wait (RFC 4862 §5.4): 100 ms instead of its default second while
        // the link-local addresses are probed again, then the default back.
        String retransmit = appliance.shell("ipoib:config ipoib.nd retransmitMillis 100");
        assertTrue(retransmit, retransmit.contains("ipoib.nd: retransmitMillis = 100"));
        try {
            for (String command : List.of(
                    "fabric:sa sendOnlyFullMember true",
                    "ipoib:capture ib0_1_ffff " + capture + " 1000",
                    "fabric:down loop0/1",
                    "fabric:down loop1/1",
                    "fabric:up loop0/1",
                    "fabric:up loop1/1",
                    "ipoib:await all 30",
                    "ipoib:addr await",
                    "ipoib:ping -c 3 -i 0.2 -W 5 'ff02::1%ib0_1_ffff'",
                    "ipoib:capture ib0_1_ffff stop")) {
                printed.append("g! ").append(command).append('\n').append(appliance.shell(command));
            }
            // The DOWN cost the groups their memberships; a join refused meanwhile is retried after
            // its backoff (a second at first), so the listing is read once both groups are back.
            String[] mcast = {""};
            Await.until("ff02::2 and 224.0.0.1 joined again", Duration.ofSeconds(30), Duration.ofMillis(100), () -> {
                try {
                    mcast[0] = appliance.shell("ipoib:mcast ib0_1_ffff");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return SEND_ONLY_JOINED.matcher(mcast[0]).find() && ALL_HOSTS_JOINED.matcher(mcast[0]).find();
            }, () -> mcast[0]);
            printed.append("g! ipoib:mcast ib0_1_ffff\n").append(mcast[0]);
        } finally {
            retransmit = appliance.shell("ipoib:config ipoib.nd retransmitMillis 1000");
            assertTrue(retransmit, retransmit.contains("ipoib.nd: retransmitMillis = 1000"));
        }
        String out = printed.toString();
        assertTrue("the SA advertises SendOnlyFullMember:\n" + out, out.contains("advertises and accepts"));
        assertTrue("the other host answers the all-nodes ping:\n" + out,
                out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(out, out.contains("from fe80::202:c903:0:201"));
        // On a thread of its own while the fields are read (the common pool may have one thread).
        java.util.concurrent.FutureTask<Run> malformed = new java.util.concurrent.FutureTask<>(
                () -> tshark(capture, "-Y", "_ws.malformed || _ws.expert.severity >= \"warning\""));
        Thread.ofPlatform().daemon().name("tshark-malformed").start(malformed);
        Run fields = tshark(capture, "-T", "fields", "-E", "separator=|", "-e", "frame.time_relative",
                "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "icmpv6.type", "-e", "_ws.col.Info");
        assertEquals(fields.err(), 0, fields.status());
        List<String[]> frames = fields.out().lines().map(l -> l.split("\\|", -1)).filter(f -> f.length >= 5)
                .toList();
        assertEquals("no malformed frames or warnings:\n" + malformed.get().out(), "",
                malformed.get().out().strip());
        return new Seen(out, frames);
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
        String mcast = seen.out().substring(seen.out().indexOf("g! ipoib:mcast ib0_1_ffff"));
        assertTrue("ff02::2 joined as SendOnlyFullMember:\n" + mcast, SEND_ONLY_JOINED.matcher(mcast).find());
        assertTrue("all-hosts joined as FullMember:\n" + mcast, ALL_HOSTS_JOINED.matcher(mcast).find());
        // tshark's reading of the capture: the DAD probe (from ::) marks the UP; the RS follows.
        OptionalDouble dad = first(seen.frames(), f -> f[1].equals("::") && f[3].equals("135"));
        OptionalDouble rs = first(seen.frames(), f -> f[3].equals("133") && f[2].equals("ff02::2"));
        assertTrue("a DAD Neighbor Solicitation after the UP:\n" + text(seen.frames()), dad.isPresent());
        assertTrue("a Router Solicitation to ff02::2 on the wire:\n" + text(seen.frames()), rs.isPresent());
        double after = rs.getAsDouble() - dad.getAsDouble();
        assertTrue("the RS " + after + " s after the DAD probe:\n" + text(seen.frames()), after < 5.0);
        assertTrue("the RS comes from the link-local address", seen.frames().stream().filter(f -> f[3].equals("133"))
                .allMatch(f -> f[1].equals("fe80::202:c903:0:101")));
        assertTrue("tshark calls it a Router Solicitation:\n" + text(seen.frames()), seen.frames().stream()
                .filter(f -> f[3].equals("133")).allMatch(f -> f[4].contains("Router Solicitation")));
    }
}
