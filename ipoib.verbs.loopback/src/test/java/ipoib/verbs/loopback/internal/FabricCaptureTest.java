package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.codec.iba.UdPacket;
import ipoib.codec.mad.MadAttribute;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.SaMad;
import ipoib.codec.pcap.ErfHeader;
import ipoib.codec.pcap.LinkType;
import ipoib.codec.pcap.PcapngReader;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import ipoib.verbs.loopback.fabric.WireTap;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabric:capture} shows the SA conversation next to the data: every MAD to and from the
 * SA as the UD packet a wire carries (LRH, BTH, DETH to QP1 with the GSI Q_Key, the MAD, ICRC,
 * VCRC), which the codec decodes with its CRC checks and tshark dissects as InfiniBand SA
 * without malformed packets or expert warnings.
 */
class FabricCaptureTest {
    @TempDir
    Path dir;

    private record Mad(int slid, int dlid, int method, int attribute) {}

    @Test
    void theCountIsOfPacketsWrittenNotOfPacketsDroppedWhenTheQueueWasFull() throws Exception {
        Path file = dir.resolve("burst.pcapng");
        int limit = 6000;
        try (LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 10_000, 3)) {
            FabricCapture capture = new FabricCapture(subnet.fabric(), file, limit);
            WireTap.Packet packet = new WireTap.Packet(0, 1, 2, 0, false, null, null, 0, 0, 0, 0xffff, 0x48, 0x0b1b,
                    0x49, new byte[4000]);
            // Faster than the writer renders and writes: the bounded queue overflows.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (capture.isRunning() && System.nanoTime() < deadline) {
                capture.packet(packet);
            }
            capture.close();
            String summary = capture.summary();
            assertTrue(!summary.contains(" 0 dropped"), "the burst overflowed the queue: " + summary);
            assertTrue(summary.contains(": " + limit + " packets written"), summary);
        }
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Files.readAllBytes(file)));
        int records = 0;
        while (reader.next()) {
            records++;
        }
        assertEquals(limit, records);
    }

    @Test
    void saRequestsAndAnswersAreCapturedAsFullIbaPacketsToQp1() throws Exception {
        Path file = dir.resolve("sa.pcapng");
        try (LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 10_000, 3)) {
            LoopPort a = subnet.fabric().devices().get(0).loopPorts().get(0);
            LoopPort b = subnet.fabric().devices().get(1).loopPorts().get(0);
            FabricCapture capture = new FabricCapture(subnet.fabric(), file, 100);
            a.subnetAdministrator().pathRecord(a.gid(0), b.gid(0), PKey.DEFAULT).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            a.subnetAdministrator().join(Mgid.parse("ff12:401b:ffff::ffff:ffff"), a.gid(0), JoinState.FULL_MEMBER)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            capture.close();
            assertTrue(capture.summary().contains("4 packets written"), capture.summary());
        }
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Files.readAllBytes(file)));
        List<Mad> mads = new ArrayList<>();
        while (reader.next()) {
            assertEquals(LinkType.ERF, reader.linkType());
            MemorySegment record = reader.data();
            // The decode checks the ICRC and VCRC, as a receiving port would.
            UdPacket p = new UdPacket().decode(record, ErfHeader.LENGTH, record.byteSize() - ErfHeader.LENGTH);
            assertEquals(1, p.bth().destinationQp(), "to the GSI");
            assertEquals(1, p.deth().sourceQp(), "from the GSI");
            assertEquals(0x8001_0000, p.deth().queueKey(), "the GSI Q_Key (IBA 13.4.5)");
            assertEquals(0xFFFF, p.bth().partitionKey());
            assertEquals(SaMad.LENGTH, p.payloadLength());
            SaMad mad = SaMad.decode(record, p.payloadOffset());
            mads.add(new Mad(p.lrh().sourceLid(), p.lrh().destinationLid(), mad.header().method(),
                    mad.header().attributeId()));
        }
        int sm = 1;
        assertEquals(List.of(new Mad(2, sm, MadMethod.GET, MadAttribute.PATH_RECORD),
                new Mad(sm, 2, MadMethod.GET_RESP, MadAttribute.PATH_RECORD),
                new Mad(2, sm, MadMethod.SET, MadAttribute.MC_MEMBER_RECORD),
                new Mad(sm, 2, MadMethod.GET_RESP, MadAttribute.MC_MEMBER_RECORD)), mads);

        String fields = tshark("-r", file.toString(), "-T", "fields", "-e", "infiniband.mad.method",
                "-e", "infiniband.mad.attributeid", "-e", "infiniband.deth.srcqp", "-e", "infiniband.pathrecord.dgid", "-e", "infiniband.mcmemberrecord.mgid");
        List<String> lines = fields.lines().toList();
        assertEquals(4, lines.size(), fields);
        assertTrue(lines.get(0).startsWith("0x01\t0x0035\t0x00000001\tfe80::"), lines.get(0));
        assertTrue(lines.get(1).startsWith("0x81\t0x0035\t0x00000001\tfe80::"), "the PathRecord in the answer: " + lines.get(1));
        assertTrue(lines.get(2).startsWith("0x02\t0x0038\t0x00000001\t\tff12:401b:ffff::ffff:ffff"), lines.get(2));
        assertTrue(lines.get(3).startsWith("0x81\t0x0038\t0x00000001\t\tff12:401b:ffff::ffff:ffff"), lines.get(3));
        String bad = tshark("-r", file.toString(), "-Y", "_ws.malformed || _ws.expert.severity >= warning");
        assertEquals("", bad.strip(), "no malformed packets or expert warnings");
    }

    /**
     * Traps and their subscription are management traffic too. A subscription
     * (InformInfo Set and its answer) and the Report of a group's creation (Notice, with the
     * subscriber's ReportResp) are in the capture, and tshark reads them without complaint.
     */
    @Test
    void trapSubscriptionsAndReportsAreCapturedToo() throws Exception {
        Path file = dir.resolve("traps.pcapng");
        try (LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 3)) {
            LoopPort a = subnet.fabric().devices().get(0).loopPorts().get(0);
            LoopPort b = subnet.fabric().devices().get(1).loopPorts().get(0);
            ipoib.api.McMemberRecord bc = a.subnetAdministrator().join(Mgid.parse("ff12:401b:ffff::ffff:ffff"),
                    a.gid(0), JoinState.FULL_MEMBER).toCompletableFuture().get(10, TimeUnit.SECONDS);
            FabricCapture capture = new FabricCapture(subnet.fabric(), file, 100);
            java.util.concurrent.LinkedBlockingQueue<ipoib.api.sa.GroupTrap> traps = new java.util.concurrent.LinkedBlockingQueue<>();
            b.subnetAdministrator().subscribe(ipoib.api.sa.GroupTrap.Type.CREATED, null, traps::add)
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            Mgid group = Mgid.parse("ff12:401b:ffff::e000:fb");
            a.subnetAdministrator().create(new ipoib.api.McMemberRecord(group, a.gid(0), bc.qkey(),
                    ipoib.api.Lid.UNASSIGNED, bc.mtu(), bc.trafficClass(), bc.pkey(), bc.rate(), 0, bc.serviceLevel(),
                    bc.flowLabel(), bc.hopLimit(), JoinState.FULL_MEMBER, false)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            ipoib.api.sa.GroupTrap trap = traps.poll(10, TimeUnit.SECONDS);
            assertTrue(trap != null && trap.mgid().equals(group), "the creation was reported: " + trap);
            capture.close();
        }
        List<String> lines = tshark("-r", file.toString(), "-T", "fields", "-e", "infiniband.mad.method",
                "-e", "infiniband.mad.attributeid").lines().toList();
        assertTrue(lines.contains("0x02\t0x0003"), "InformInfo Set: " + lines);
        assertTrue(lines.contains("0x81\t0x0003"), "its GetResp: " + lines);
        assertTrue(lines.contains("0x06\t0x0002"), "the Report of the Notice: " + lines);
        assertTrue(lines.contains("0x86\t0x0002"), "the subscriber's ReportResp: " + lines);
        String bad = tshark("-r", file.toString(), "-Y", "_ws.malformed || _ws.expert.severity >= warning");
        assertEquals("", bad.strip(), "no malformed packets or expert warnings");
    }

    private static String tshark(String... args) throws Exception {
        return Tshark.run(args);
    }
}
