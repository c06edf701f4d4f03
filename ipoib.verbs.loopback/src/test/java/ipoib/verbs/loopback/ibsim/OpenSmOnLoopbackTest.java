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
}
