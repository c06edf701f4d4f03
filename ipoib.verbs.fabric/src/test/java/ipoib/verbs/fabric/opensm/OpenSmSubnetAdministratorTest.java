package ipoib.verbs.fabric.opensm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.satest.SaHost;
import ipoib.satest.SubnetAdministratorContract;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared SA suite against a real OpenSM: ibsim simulates a switch and four HCAs, OpenSM runs
 * on the switch, and each of three HCAs is a forked JVM running the hardware provider's
 * {@code UmadTransport} (libibumad under umad2sim) with the shared {@code SaClient}. Fails,
 * naming the package, when ibsim, OpenSM or umad2sim is not installed.
 */
class OpenSmSubnetAdministratorTest extends SubnetAdministratorContract {
    private static final List<String> HOSTS = List.of("H1", "H2", "H3");
    private OpenSmFabric fabric;

    @BeforeAll
    void startSubnet(@TempDir Path dir) throws Exception {
        // H3 is the trap subscriber: see SaHostMain.becomeReportReceiver for why ibsim needs help.
        fabric = OpenSmFabric.start(dir, HOSTS, Set.of("H3"), 300, 3);
    }

    @AfterAll
    void stopSubnet() throws Exception {
        if (fabric != null) {
            try {
                // OpenSM's own account of what it refused, for the test report.
                System.out.println(fabric.openSmLog().lines().filter(l -> l.contains(" ERR ")
                        || l.contains("Notice")).reduce("OpenSM errors and notices:", (x, y) -> x + "\n" + y));
            } finally {
                fabric.close();
            }
        }
    }

    @Override
    protected SaHost host(int index) {
        return fabric.hosts().get(index);
    }

    /**
     * OpenSM hands a GetTable answer to its MAD layer whole, marked RMPP Active, for the kernel to
     * segment (osm_sa.c:512-514 with VENDOR_RMPP_SUPPORT, always defined by config/osmvsel.m4:124;
     * osm_vendor_ibumad.c:1166,1189 sends the whole length). Under umad2sim there is no kernel:
     * umad2sim_write (umad2sim.c:901-902) copies at most 256 octets into the simulator's request
     * (ibsim.h:71 {@code char mad[256]}), so the client receives the first MAD only, with RMPP
     * Active but RMPPVersion 0, type 0, SegmentNumber 0 and PayloadLength 0, and nothing tells it
     * how long the table was. (ibsim 0.10/0.12, OpenSM 3.3.23.)
     */
    @Override
    protected String rmppLimit() {
        return "OpenSM on ibsim: umad2sim passes OpenSM's whole GetTable answer through a 256-octet "
                + "buffer, unsegmented (no kernel MAD layer to do RMPP), so only its first MAD (3 MCMemberRecords) "
                + "reaches the client";
    }

    @Test
    void eachHostSeesItsPortAsTheSmConfiguredIt() {
        // ibsim numbers node GUIDs from 0x100000 (HCAs, port GUID = node GUID + 1) in net-file order;
        // OpenSM gives the switch LID 1 and the HCAs LIDs 2, 3, 4 in discovery order.
        for (SaHost h : fabric.hosts()) {
            assertEquals(Gid.DEFAULT_SUBNET_PREFIX, h.portGid().prefix(), h.name());
            assertTrue(h.lid().isUnicast() && !h.lid().equals(Lid.of(1)), h.name() + " LID " + h.lid());
        }
        assertEquals(3, fabric.hosts().stream().map(SaHost::lid).distinct().count());
    }
}
