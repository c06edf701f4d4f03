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
 *
 * <p>Long GetTable answers (the RMPP tests) come from OpenSM as RMPP segments cut by
 * {@code umad_rmpp_shim.c}, preloaded into OpenSM: OpenSM hands such an answer to libibumad
 * whole, marked RMPP Active, for the kernel's MAD layer to segment (osm_sa.c:512-514,
 * osm_vendor_ibumad.c:1166,1189,1201), and ibsim has no kernel: umad2sim_write copies at most
 * 256 octets per MAD (umad2sim.c:901-902, ibsim.h:71), so without the shim only the first MAD
 * would arrive. The shim plays the kernel's RMPP sender (mad_rmpp.c: segments, window, the
 * client's ACKs consumed, retransmission); {@code umad2sim_full_mad.c} repairs umad2sim's
 * receive path, which delivers only 224 of a MAD's 256 octets (see {@link OpenSmFabric}). The
 * records are OpenSM's; the client's reassembly and its ACKs are the real ones, sent through
 * {@code UmadTransport} to OpenSM's port. Not exercised against OpenSM: a kernel's timing, and
 * OpenSM's handling of an answer whose ACKs never come (a kernel reports it to OpenSM as timed
 * out; the shim drops it).
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
