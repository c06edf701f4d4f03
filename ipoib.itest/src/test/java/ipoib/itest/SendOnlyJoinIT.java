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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Issue 14 item 8, as a user sees it: the appliance with its defaults, an interface taken DOWN
 * and UP again while {@code ipoib:capture} records it; tshark reads the capture. The Router
 * Solicitation that ND sends to ff02::2 goes out within seconds of the UP although no router
 * (no member of ff02::2) exists, because the send-only join is a SendOnlyFullMember join that
 * creates the group (the loopback SA advertises it in ClassPortInfo, as OpenSM 3.3.23 does);
 * {@code ipoib:ping ff02::1%ib0_1_ffff} is answered by the other host; the interface stays a
 * FullMember of 224.0.0.1.
 */
public class SendOnlyJoinIT {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static File appliance;

    @BeforeClass
    public static void findAppliance() {
        appliance = new File(System.getProperty("appliance.jar", "missing"));
        assertTrue("appliance jar built by ipoib.appliance: " + appliance, appliance.isFile());
    }

    private record Run(int status, String out, String err) {}

    private Run run(List<String> command) throws IOException, InterruptedException {
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

    private Run tshark(Path capture, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("tshark", "-r", capture.toString()));
        command.addAll(List.of(arguments));
        try {
            return run(command);
        } catch (IOException e) {
            fail("tshark is not installed: install the Debian package tshark (./ipoib test installs it): " + e);
            return null;
        }
    }

    @Test
    public void aRouterSolicitationGoesOutSoonAfterUpAndAllNodesAnswerAPing() throws Exception {
        Path capture = tmp.getRoot().toPath().resolve("ib0.pcapng");
        Path script = tmp.newFile().toPath();
        Files.writeString(script, String.join("\n",
                "ipoib:await all 30",
                "ipoib:capture ib0_1_ffff " + capture + " 1000",
                "fabric:down loop0/1",
                "fabric:up loop0/1",
                "ipoib:await all 30",
                "ipoib:addr await",
                "ipoib:ping -c 3 -i 1 -W 5 'ff02::1%ib0_1_ffff'",
                "ipoib:capture ib0_1_ffff stop",
                "ipoib:mcast ib0_1_ffff",
                ""), StandardCharsets.UTF_8);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Run appliance = run(List.of(java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-Dorg.osgi.service.http.port=0", "-Dipoib.script=" + script,
                "-Dgosh.args=--nointeractive --noshutdown", "-jar", SendOnlyJoinIT.appliance.getPath()));
        String out = appliance.out();
        assertEquals("exit status; stdout:\n" + out + "\nstderr: " + appliance.err(), 0, appliance.status());

        assertTrue("the other host answers the all-nodes ping:\n" + out,
                out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(out, out.contains("from fe80::202:c903:0:201"));
        String mcast = out.substring(out.indexOf("g! ipoib:mcast ib0_1_ffff"));
        assertTrue("ff02::2 joined as SendOnlyFullMember:\n" + mcast,
                Pattern.compile("ff12:601b:ffff::2\\s+ff02::2\\s+MLID 0x\\p{XDigit}+ SendOnlyFullMember\\s+SEND_ONLY .*JOINED")
                        .matcher(mcast).find());
        assertTrue("all-hosts joined as FullMember:\n" + mcast,
                Pattern.compile("224\\.0\\.0\\.1\\s+MLID 0x\\p{XDigit}+ FullMember\\s+LISTENER .*JOINED").matcher(mcast).find());

        // tshark's reading of the capture: the DAD probe (from ::) marks the UP; the RS follows.
        Run frames = tshark(capture, "-T", "fields", "-E", "separator=|", "-e", "frame.time_relative",
                "-e", "ipv6.src", "-e", "ipv6.dst", "-e", "icmpv6.type", "-e", "_ws.expert.severity");
        assertEquals(frames.err(), 0, frames.status());
        double dad = -1;
        double rs = -1;
        for (String line : frames.out().lines().toList()) {
            String[] f = line.split("\\|", -1);
            if (f.length < 5) {
                continue;
            }
            if (f[1].equals("::") && f[3].equals("135") && dad < 0) {
                dad = Double.parseDouble(f[0]);
            }
            if (f[3].equals("133") && f[2].equals("ff02::2") && rs < 0) {
                rs = Double.parseDouble(f[0]);
                assertEquals("the RS comes from the link-local address", "fe80::202:c903:0:101", f[1]);
            }
        }
        assertTrue("a DAD Neighbor Solicitation after the UP:\n" + frames.out(), dad >= 0);
        assertTrue("a Router Solicitation to ff02::2 on the wire:\n" + frames.out(), rs >= 0);
        assertTrue("the RS " + (rs - dad) + " s after the DAD probe:\n" + frames.out(), rs - dad < 5.0);

        Run summary = tshark(capture, "-Y", "icmpv6.type == 133");
        assertTrue(summary.out(), summary.out().contains("Router Solicitation"));
        Run malformed = tshark(capture, "-Y", "_ws.malformed || _ws.expert.severity >= \"warning\"");
        assertEquals("no malformed frames or warnings:\n" + malformed.out(), "", malformed.out().strip());
        Matcher written = Pattern.compile("(\\d+) frames written").matcher(out);
        assertTrue(out, written.find());
    }
}
