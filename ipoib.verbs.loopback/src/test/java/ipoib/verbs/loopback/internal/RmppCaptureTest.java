package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member table of 20 groups as tshark reads it in a {@code fabric:capture}: the GetTable, six
 * RMPP DATA segments of the GetTableResp and the client's two ACKs, with the RMPP fields IBA
 * 13.6.2 and Linux's sender give them (1120 octets of records: the first segment's PayloadLength
 * 6 x 220 - 80 = 1240, the last's 220 - 80 = 140, the others 0), and no malformed packet.
 */
class RmppCaptureTest {
    @TempDir
    Path dir;

    @Test
    void aLongMemberTableIsRmppSegmentsAndAcksOnTheWire() throws Exception {
        Path file = dir.resolve("rmpp.pcapng");
        try (LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 5000, 3, 1)) {
            LoopPort a = subnet.fabric().devices().get(0).loopPorts().get(0);
            SubnetAdministrator sa = a.subnetAdministrator();
            for (int i = 0; i < 20; i++) {
                Mgid g = Mgid.parse("ff12:401b:ffff::e000:" + Integer.toHexString(0x500 + i));
                sa.create(new McMemberRecord(g, a.gid(0), QKey.of(0x0b1b), Lid.UNASSIGNED, IbMtu.MTU_2048, 0,
                        PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false))
                        .toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            FabricCapture capture = new FabricCapture(subnet.fabric(), file, 100);
            assertEquals(20, sa.groups().toCompletableFuture().get(10, TimeUnit.SECONDS).size());
            // The client's last ACK leaves as the answer completes: wait for the SA to have it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (subnet.subnetAdministrator().statistics().get("RMPP transfers completed") < 1) {
                assertTrue(System.nanoTime() < deadline, "the SA did not see the final ACK");
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
            capture.close();
        }
        String fields = tshark("-r", file.toString(), "-T", "fields", "-E", "separator=,", "-e", "infiniband.mad.method",
                "-e", "infiniband.rmpp.rmppversion", "-e", "infiniband.rmpp.rmpptype", "-e", "infiniband.rmpp.rmppflags",
                "-e", "infiniband.rmpp.segmentnumber", "-e", "infiniband.rmpp.payloadlength",
                "-e", "infiniband.rmpp.newwindowlast");
        // tshark prints the 32-bit fields in hex: 1240 = 0x4d8, 140 = 0x8c, 65 = 0x41.
        List<String> expected = List.of(
                "0x12,0x00,0x00,0x00,,,", // GetTable, no RMPP
                "0x92,0x01,0x01,0x03,0x00000001,0x000004d8,", // DATA, Active|First, the whole PayloadLength
                "0x12,0x01,0x02,0x01,0x00000001,,0x00000041", // ACK of 1, NewWindowLast 1 + 64
                "0x92,0x01,0x01,0x01,0x00000002,0x00000000,",
                "0x92,0x01,0x01,0x01,0x00000003,0x00000000,",
                "0x92,0x01,0x01,0x01,0x00000004,0x00000000,",
                "0x92,0x01,0x01,0x01,0x00000005,0x00000000,",
                "0x92,0x01,0x01,0x05,0x00000006,0x0000008c,", // Active|Last, its own PayloadLength
                "0x12,0x01,0x02,0x01,0x00000006,,0x00000041"); // ACK of the last
        assertEquals(expected, fields.lines().toList(), fields);
        String bad = tshark("-r", file.toString(), "-Y", "_ws.malformed || _ws.expert.severity >= warning");
        assertEquals("", bad.strip(), "no malformed packets or expert warnings");
    }

    private static String tshark(String... args) throws Exception {
        return FabricCaptureTest.tshark(args);
    }
}
