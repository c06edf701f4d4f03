package ipoib.verbs.loopback.ibsim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's OpenSM manages the loopback fabric (sm=external) through ibsim's protocol, and
 * infiniband-diags see it; Debian's ibsim with the same net file is the oracle. One fabric and
 * one OpenSM for every test of the class.
 */
class OpenSmOnLoopbackTest {
    static final Path TWO_SWITCHES = Path.of("../examples/two-switches.net").toAbsolutePath().normalize();
    static final String PARTITIONS = "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, defmember=full : ALL=full ;\n";

    @TempDir
    static Path dir;
    static OpenSmOnLoopback subnet;

    @BeforeAll
    static void start() throws Exception {
        subnet = OpenSmOnLoopback.start(dir, TWO_SWITCHES, PARTITIONS);
    }

    @AfterAll
    static void stop() {
        if (subnet != null) {
            subnet.close();
        }
    }

    @Test
    void openSmIsMasterAndEveryPortHasALidAndIsActive() throws Exception {
        String sminfo = subnet.tool("sminfo");
        assertTrue(sminfo.contains("SMINFO_MASTER"), sminfo);
        List<String> without = new ArrayList<>();
        for (Node n : subnet.subnet.fabric().topology().nodes()) {
            for (Port p : n.ports()) {
                if ((p.isSwitchPort0() || !n.isSwitch()) && (p.lid() == 0 || p.state() != PortState.ACTIVE)) {
                    without.add(n.name() + "/" + p.number() + " lid " + p.lid() + " " + p.state());
                }
            }
        }
        assertEquals(List.of(), without);
    }

    /** What ibnetdiscover prints but for the line with the time it ran. */
    static String withoutDate(String ibnetdiscover) {
        return ibnetdiscover.replaceAll("(?m)^# Topology file: generated on .*$", "# Topology file: generated on (date)");
    }

    @Test
    void ibnetdiscoverSeesWhatItSeesOnDebiansIbsimWithTheSameNetFile() throws Exception {
        String expected;
        Path oracleDir = java.nio.file.Files.createDirectories(dir.resolve("oracle"));
        try (RealIbsim ibsim = RealIbsim.startManaged(oracleDir, java.nio.file.Files.readString(TWO_SWITCHES))) {
            expected = RealIbsim.tool(oracleDir, java.util.Map.of("IBSIM_SOCKNAME", ibsim.sockName()), "ibnetdiscover");
        }
        assertEquals(withoutDate(expected), withoutDate(subnet.tool("ibnetdiscover")));
    }

    /** The model's HCA node of a device (loop0 is hca0 of the net file, ...). */
    static Port hcaPort(String node) {
        return subnet.subnet.fabric().topology().node(node).port(1);
    }

    @Test
    void smpqueryShowsTheLidsOpenSmAssigned() throws Exception {
        for (String node : List.of("hca0", "hca1", "hca2", "hca3")) {
            int lid = hcaPort(node).lid();
            String portInfo = subnet.tool("smpquery", "portinfo", Integer.toString(lid), "1");
            assertTrue(portInfo.contains("\nLid:" + ".".repeat(29) + lid + "\n"), portInfo);
            assertTrue(portInfo.contains("LinkState:" + ".".repeat(23) + "Active"), portInfo);
        }
    }

    /** A counter of perfquery's output (PortXmitData, PortXmitPkts, ...). */
    static long counter(String perfquery, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + name + ":\\.+(\\d+)$").matcher(perfquery);
        assertTrue(m.find(), name + " in\n" + perfquery);
        return Long.parseLong(m.group(1));
    }

    @Test
    void perfqueryCountsTheDatagramsSentAcrossBothSwitches() throws Exception {
        String lid = Integer.toString(hcaPort("hca0").lid());
        String before = subnet.tool("perfquery", lid, "1");
        int sent = UdTraffic.send(subnet.subnet, 0, 1, 20, 1000); // loop0 (hca0, on sw1) to loop1 (hca1, on sw2)
        String after = subnet.tool("perfquery", lid, "1");
        // The datagrams, and the management MADs the port answered meanwhile (perfquery's own, OpenSM's sweeps).
        long packets = counter(after, "PortXmitPkts") - counter(before, "PortXmitPkts");
        assertTrue(packets >= 20 && packets < 30, packets + " packets:\n" + after);
        // PortXmitData counts 4-octet words of whole packets (IBA 16.1.3.5): at least the payloads.
        assertTrue(counter(after, "PortXmitData") - counter(before, "PortXmitData") >= 20 * 1000 / 4, after);
        assertEquals(20, sent);
    }
}
