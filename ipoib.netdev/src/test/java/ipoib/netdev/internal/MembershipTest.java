package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Reports laid out as RFC 2236, RFC 3376 §4.2, RFC 2710 and RFC 3810 §5.2 define them. */
class MembershipTest {
    private final List<String> events = new ArrayList<>();
    private final Membership membership = new Membership(g -> events.add("join " + g.getHostAddress()),
            g -> events.add("leave " + g.getHostAddress()));

    private static MemorySegment hex(String text) {
        return MemorySegment.ofArray(HexFormat.of().parseHex(text.replace(" ", "")));
    }

    /** A join that failed (a link restart racing the multicast service) is joined again at the next reconciliation. */
    @Test
    void aFailedJoinIsTriedAgainAtTheNextReconciliation() throws Exception {
        InetAddress allHosts = InetAddress.getByName("224.0.0.1");
        membership.reconcile(Set.of(allHosts));
        membership.reconcile(Set.of(allHosts));
        assertEquals(List.of("join 224.0.0.1"), events, "a group joined is joined once");
        membership.joinFailed(allHosts);
        membership.reconcile(Set.of(allHosts));
        assertEquals(List.of("join 224.0.0.1", "join 224.0.0.1"), events);
        assertEquals(Set.of(allHosts), membership.groups());
    }

    @Test
    void igmpV3ChangeToExcludeJoinsAndChangeToIncludeWithoutSourcesLeaves() throws Exception {
        // type 0x22, reserved, checksum, reserved, 1 record: CHANGE_TO_EXCLUDE (4), aux 0, 0 sources, 239.1.1.1
        MemorySegment join = hex("22 00 f9 fb 0000 0001 04 00 0000 ef010101");
        assertTrue(membership.igmp(join, 0, (int) join.byteSize()));
        // A repeated report (robustness) joins nothing more.
        assertTrue(membership.igmp(join, 0, (int) join.byteSize()));
        assertEquals(Set.of(InetAddress.getByName("239.1.1.1")), membership.groups());
        MemorySegment leave = hex("22 00 fa fb 0000 0001 03 00 0000 ef010101");
        assertTrue(membership.igmp(leave, 0, (int) leave.byteSize()));
        assertEquals(List.of("join 239.1.1.1", "leave 239.1.1.1"), events);
        assertTrue(membership.groups().isEmpty());
    }

    @Test
    void igmpV3RecordsWithSourcesAndAuxDataAreSkippedCorrectly() {
        // Two records: MODE_IS_INCLUDE (1) with 1 source and 1 aux word for 239.2.2.2, then MODE_IS_EXCLUDE (2) for 239.3.3.3.
        MemorySegment report = hex("22 00 0000 0000 0002 01 01 0001 ef020202 0a000001 deadbeef 02 00 0000 ef030303");
        assertTrue(membership.igmp(report, 0, (int) report.byteSize()));
        assertEquals(List.of("join 239.2.2.2", "join 239.3.3.3"), events);
    }

    @Test
    void igmpV2ReportAndLeave() {
        MemorySegment report = hex("16 00 0000 e0000105");
        MemorySegment leave = hex("17 00 0000 e0000105");
        assertTrue(membership.igmp(report, 0, 8));
        assertTrue(membership.igmp(leave, 0, 8));
        assertEquals(List.of("join 224.0.1.5", "leave 224.0.1.5"), events);
    }

    @Test
    void igmpQueriesAreNotReports() {
        MemorySegment query = hex("11 64 0000 00000000");
        assertFalse(membership.igmp(query, 0, 8));
        assertTrue(events.isEmpty());
    }

    @Test
    void mldV2ReportOfASolicitedNodeGroupAtAnOffset() {
        // 4 octets of something before the ICMPv6 message; type 143, 1 record CHANGE_TO_EXCLUDE ff02::1:ff00:201.
        MemorySegment report = hex("00000000 8f 00 0000 0000 0001 04 00 0000 ff02 0000 0000 0000 0000 0001 ff00 0201");
        assertTrue(membership.mld(report, 4, (int) report.byteSize() - 4));
        assertEquals(List.of("join ff02:0:0:0:0:1:ff00:201"), events);
    }

    @Test
    void mldV1ReportAndDone() {
        MemorySegment report = hex("83 00 0000 0000 0000 ff0e0000000000000000000000000101");
        MemorySegment done = hex("84 00 0000 0000 0000 ff0e0000000000000000000000000101");
        assertTrue(membership.mld(report, 0, 24));
        assertTrue(membership.mld(done, 0, 24));
        assertEquals(List.of("join ff0e:0:0:0:0:0:0:101", "leave ff0e:0:0:0:0:0:0:101"), events);
    }

    @Test
    void truncatedRecordsStopWithoutThrowing() {
        MemorySegment report = hex("22 00 0000 0000 0005 04 00 0000 ef01");
        assertTrue(membership.igmp(report, 0, (int) report.byteSize()));
        assertTrue(events.isEmpty());
    }

    @Test
    void leaveAllLeavesEveryGroup() {
        MemorySegment join = hex("22 00 0000 0000 0002 04 00 0000 ef010101 04 00 0000 ef010102");
        membership.igmp(join, 0, (int) join.byteSize());
        membership.leaveAll();
        assertEquals(4, events.size());
        assertTrue(membership.groups().isEmpty());
    }

    @Test
    void theDeviceMulticastListJoinsWhatWasNeverReportedAndLeavesWhatIsGone() throws Exception {
        membership.reconcile(Set.of(InetAddress.getByName("224.0.0.1"), InetAddress.getByName("ff02::1"),
                InetAddress.getByName("ff01::1")));
        assertEquals(Set.of(InetAddress.getByName("224.0.0.1"), InetAddress.getByName("ff02::1")), membership.groups());
        membership.reconcile(Set.of(InetAddress.getByName("224.0.0.1")));
        assertEquals(Set.of(InetAddress.getByName("224.0.0.1")), membership.groups());
        assertEquals(3, events.size());
        assertTrue(events.contains("leave ff02:0:0:0:0:0:0:1"));
    }
}
