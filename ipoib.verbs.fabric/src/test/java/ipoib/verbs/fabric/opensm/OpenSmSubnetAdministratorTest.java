package ipoib.verbs.fabric.opensm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.Lid;
import ipoib.satest.SaHost;
import ipoib.satest.SubnetAdministratorContract;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    private static final int SMALL_WINDOW = 3;
    private OpenSmFabric fabric;

    @BeforeAll
    void startSubnet(@TempDir Path dir) throws Exception {
        // H3 is the trap subscriber: see SaHostMain.becomeReportReceiver for why ibsim needs help.
        // H3's client acknowledges every SMALL_WINDOW segments (theShimAdvancesOpenSmsWindowOnEachAck).
        fabric = OpenSmFabric.start(dir, HOSTS, Set.of("H3"), 300, 3, Map.of("H3", SMALL_WINDOW));
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
     * A client whose RMPP window is three segments: OpenSM's answer of 30 and more groups (at
     * least 9 segments) comes in windows of three, each opened by the client's ACK, which the
     * shim (as mad_rmpp.c process_rmpp_ack) takes to send on; its line for the transfer says
     * so. (A shim deaf to ACKs would still finish, a window per 2-second ACK timeout.)
     */
    @Test
    void theShimAdvancesOpenSmsWindowOnEachAck() throws Exception {
        SaHost small = fabric.hosts().get(2);
        List<Mgid> made = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Mgid g = Mgid.parse("ff12:401b:ffff::e000:" + Integer.toHexString(0x600 + i));
            get(small.sa().create(new McMemberRecord(g, small.portGid(), QKey.of(0x0b1b), Lid.UNASSIGNED,
                    IbMtu.MTU_2048, 0, PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false)));
            made.add(g);
        }
        try {
            Map<String, Long> before = small.sa().statistics();
            int shimLines = fabric.openSmOutput().size();
            List<Mgid> seen = get(small.sa().groups()).stream().map(McMemberRecord::mgid).filter(made::contains)
                    .distinct().toList();
            Map<String, Long> after = small.sa().statistics();
            assertEquals(made.size(), seen.size(), "our groups in the table: " + seen);
            long segments = after.getOrDefault("rmpp_segments", 0L) - before.getOrDefault("rmpp_segments", 0L);
            assertTrue(segments >= 9, "30 records of 56 octets are at least 9 segments of 200: " + segments);
            assertEquals(before.getOrDefault("rmpp_aborted", 0L), after.getOrDefault("rmpp_aborted", 0L), "aborted");
            // "umad_rmpp_shim: TID 0x... to LID 4: done after 9 of 9 segments; 3 windows opened by ACKs, 0 ACK
            // timeouts". OpenSM took this host's earlier ACKs before the creates that followed them.
            String to = " to LID " + small.lid().value() + ": ";
            List<String> transfer = fabric.awaitOpenSmOutput(shimLines,
                    l -> l.startsWith("umad_rmpp_shim: TID ") && l.contains(to));
            assertEquals(1, transfer.size(), "the shim's line for the table: " + transfer);
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile(": done after (\\d+) of \\1 segments; (\\d+) windows opened by ACKs").matcher(transfer.get(0));
            assertTrue(m.find(), transfer.get(0));
            assertTrue(Integer.parseInt(m.group(1)) >= 9 && Integer.parseInt(m.group(2)) >= 1, transfer.get(0));
        } finally {
            for (Mgid g : made) {
                get(small.sa().leave(g, small.portGid(), JoinState.FULL_MEMBER));
            }
        }
    }

    @Test
    void eachHostSeesItsPortAsTheSmConfiguredIt() {
        // ibsim numbers node GUIDs from 0x100000 (HCAs, port GUID = node GUID + 1) in net-file order;
        // OpenSM gives the switch LID 1 and the HCAs base LIDs 2, 4, 6 in discovery order (LMC 1).
        for (SaHost h : fabric.hosts()) {
            assertEquals(Gid.DEFAULT_SUBNET_PREFIX, h.portGid().prefix(), h.name());
            assertTrue(h.lid().isUnicast() && !h.lid().equals(Lid.of(1)), h.name() + " LID " + h.lid());
        }
        assertEquals(3, fabric.hosts().stream().map(SaHost::lid).distinct().count());
    }
}
