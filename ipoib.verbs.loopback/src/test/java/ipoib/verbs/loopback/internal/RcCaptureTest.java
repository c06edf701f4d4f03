package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.WorkCompletions;
import ipoib.codec.iba.Icrc;
import ipoib.codec.iba.Vcrc;
import ipoib.codec.pcap.ErfHeader;
import ipoib.codec.pcap.PcapngReader;
import ipoib.verbs.loopback.fabric.Fabric;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.Faults;
import ipoib.verbs.loopback.fabric.LoopPort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabric:capture} shows RC traffic as a wire carries it, and {@code fabric:stats} counts it
 * per port: an RC transfer that starts before the receiver posted buffers (RNR NAKs) and then
 * loses a quarter of its packets, captured and read back by tshark — SEND First, Middle, Last and
 * Only with their PSNs, ACKNOWLEDGE packets with the AETH (ACKs, RNR NAKs, PSN-sequence-error
 * NAKs), retransmitted PSNs — whose VCRC and ICRC check, with no malformed packet or expert
 * warning.
 */
class RcCaptureTest {
    @TempDir
    Path dir;

    private static final int MESSAGES = 12;
    private static final int LONG = 5000; // three packets of 2048: First, Middle, Last
    private static final int SHORT = 100; // one packet: Only

    @Test
    void anRcTransferWithLossIsCapturedAsRcPacketsWithAcksNaksAndRetransmissions() throws Exception {
        Path file = dir.resolve("rc.pcapng");
        FabricConfig d = FabricConfig.defaults();
        try (Fabric fabric = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 11)); Arena arena = Arena.ofShared()) {
            fabric.start();
            LoopPort pa = fabric.devices().get(0).loopPorts().get(0);
            LoopPort pb = fabric.devices().get(1).loopPorts().get(0);
            CompletionQueue aCq = pa.createCompletionQueue(256);
            CompletionQueue bCq = pb.createCompletionQueue(256);
            SharedReceiveQueue srq = pb.createSharedReceiveQueue(64);
            RcQueuePair a = pa.createRcQueuePair(new RcQueuePairConfig(aCq, aCq, null, 32, 4, 0));
            RcQueuePair b = pb.createRcQueuePair(new RcQueuePairConfig(bCq, bCq, srq, 4, 4, 0));
            a.readyToReceive(new RcReceiveAttributes(b.qpn(), AddressVector.local(Lid.of(pb.attributes().lid().value()),
                    0), IbMtu.MTU_2048, 0x200));
            b.readyToReceive(new RcReceiveAttributes(a.qpn(), AddressVector.local(Lid.of(pa.attributes().lid().value()),
                    0), IbMtu.MTU_2048, 0x100));
            // 67 ms ACK timeout, 7 retries: loss is repaired well within them.
            a.readyToSend(new RcSendAttributes(0x100, 14, 7, 7));
            b.readyToSend(new RcSendAttributes(0x200, 14, 7, 7));
            MemoryRegion am = pa.device().registerMemory(arena.allocate(MESSAGES * 8192L));
            MemoryRegion bm = pb.device().registerMemory(arena.allocate(MESSAGES * 8192L));
            for (int i = 0; i < MESSAGES * 8192; i++) {
                am.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            FabricCapture capture = new FabricCapture(fabric, file, 100_000);
            // The first message finds no buffer: b answers RNR NAK and a tries again (rnr_retry 7:
            // for ever) until the buffers are posted.
            assertTrue(a.postSend(0, am, 0, length(0)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (pb.rcCounters().snapshot().get("rnr_naks") == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            for (int i = 0; i < MESSAGES; i++) {
                assertTrue(srq.postReceive(i, bm, i * 8192L, 8192));
            }
            fabric.setFaults(pa, new Faults(25, 0, 0, 0, 0)); // then a quarter of a's data packets are lost
            for (int i = 1; i < MESSAGES; i++) {
                assertTrue(a.postSend(i, am, i * 8192L, length(i)));
            }
            assertEquals(List.of(CompletionStatus.SUCCESS), distinct(await(aCq, MESSAGES)), "every send completes");
            List<Integer> lengths = new ArrayList<>();
            WorkCompletions wc = new WorkCompletions(64);
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (lengths.size() < MESSAGES && System.nanoTime() < deadline) {
                for (int i = 0, n = bCq.poll(wc); i < n; i++) {
                    assertEquals(CompletionStatus.SUCCESS, wc.status(i));
                    lengths.add(wc.byteLength(i));
                    int k = (int) wc.workRequestId(i);
                    assertArrayEquals(am.segment().asSlice(k * 8192L, length(k)).toArray(ValueLayout.JAVA_BYTE),
                            bm.segment().asSlice(k * 8192L, length(k)).toArray(ValueLayout.JAVA_BYTE),
                            "message " + k + " arrived byte for byte");
                }
            }
            assertEquals(MESSAGES, lengths.size(), "every message arrived");
            capture.close();
            assertTrue(capture.summary().contains(" 0 dropped"), capture.summary());

            // Every record is a whole packet whose VCRC and ICRC a receiving port would accept.
            PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Files.readAllBytes(file)));
            int records = 0;
            while (reader.next()) {
                MemorySegment record = reader.data();
                int length = (int) record.byteSize() - ErfHeader.LENGTH;
                Vcrc.verify(record.asSlice(ErfHeader.LENGTH), 0, length - Vcrc.LENGTH);
                Icrc.verify(record.asSlice(ErfHeader.LENGTH), 0, length - Vcrc.LENGTH - Icrc.LENGTH);
                records++;
            }

            // tshark's view: opcode, PSN, AckReq, source LID, AETH syndrome and MSN of every packet.
            String fields = tshark("-r", file.toString(), "-T", "fields", "-e", "infiniband.bth.opcode",
                    "-e", "infiniband.bth.psn", "-e", "infiniband.bth.a", "-e", "infiniband.lrh.slid",
                    "-e", "infiniband.aeth.syndrome", "-e", "infiniband.aeth.msn");
            Map<Integer, Integer> opcodes = new HashMap<>();
            Map<Integer, Integer> dataPsns = new HashMap<>();
            int naks = 0;
            int rnrNaks = 0;
            int acks = 0;
            int aLid = pa.attributes().lid().value();
            for (String line : fields.lines().toList()) {
                String[] f = line.split("\t", -1);
                int opcode = Integer.decode(f[0]);
                opcodes.merge(opcode, 1, Integer::sum);
                if (opcode == 0x11) {
                    assertTrue(!f[4].isEmpty(), "an ACKNOWLEDGE carries an AETH: " + line);
                    int syndrome = Integer.decode(f[4]);
                    if (syndrome == 0x60) {
                        naks++; // NAK, PSN sequence error
                    } else if (syndrome == 0x21) {
                        rnrNaks++; // RNR NAK, timer code 1
                    } else {
                        assertEquals(0x1F, syndrome, "an ACK with no credit count: " + line);
                        acks++;
                    }
                } else {
                    assertEquals(aLid, Integer.decode(f[3]), "data packets come from a: " + line);
                    dataPsns.merge(Integer.decode(f[1]), 1, Integer::sum);
                    assertEquals(opcode == 0x02 || opcode == 0x04, "1".equals(f[2]) || "True".equals(f[2]),
                            "AckReq on the last packet of a message: " + line);
                }
            }
            assertEquals(records, fields.lines().count(), "tshark read every record");
            assertTrue(opcodes.keySet().containsAll(List.of(0x00, 0x01, 0x02, 0x04, 0x11)),
                    "RC SEND First, Middle, Last, Only and ACKNOWLEDGE: " + opcodes);
            int firstTransmissions = MESSAGES / 2 * 4; // 6 long messages of 3 packets, 6 short of 1
            assertEquals(firstTransmissions, dataPsns.size(), "PSNs 0x100.. one per packet: " + dataPsns.keySet());
            assertTrue(dataPsns.keySet().containsAll(List.of(0x100, 0x100 + firstTransmissions - 1)), "" + dataPsns);
            long resent = dataPsns.values().stream().filter(n -> n > 1).count();
            assertTrue(resent > 0, "retransmitted PSNs appear again: " + dataPsns);
            assertTrue(rnrNaks > 0, "the message without a buffer was answered with RNR NAKs");
            // Each loss is repaired after a NAK of the gap behind it, or after the ACK timeout when
            // nothing followed it.
            assertTrue(naks + pa.rcCounters().snapshot().get("ack_timeouts") > 0, "losses were repaired");

            // fabric:stats counts the same per port.
            Map<String, Long> rcA = pa.rcCounters().snapshot();
            Map<String, Long> rcB = pb.rcCounters().snapshot();
            int dataPackets = dataPsns.values().stream().mapToInt(Integer::intValue).sum();
            assertEquals(dataPackets, rcA.get("packets"), "a's data packets, retransmissions included");
            assertEquals(dataPackets - firstTransmissions, rcA.get("retransmitted"));
            assertEquals(acks, rcB.get("acks"));
            assertEquals(naks, rcB.get("naks"));
            assertEquals(rnrNaks, rcB.get("rnr_naks"));
            String stats = new FabricCommands(fabric, null).stats();
            assertTrue(stats.contains("rc " + pa), stats);
            assertTrue(stats.contains(" packets " + dataPackets + " retransmitted " + (dataPackets - firstTransmissions)),
                    stats);

            String verbose = tshark("-r", file.toString(), "-V");
            for (String name : List.of("Reliable Connection (RC) - SEND First", "Reliable Connection (RC) - SEND Middle",
                    "Reliable Connection (RC) - SEND Last", "Reliable Connection (RC) - SEND Only",
                    "Reliable Connection (RC) - Acknowledge")) {
                assertTrue(verbose.contains(name), "tshark names " + name);
            }
            String bad = tshark("-r", file.toString(), "-Y", "_ws.malformed || _ws.expert.severity >= warning");
            assertEquals("", bad.strip(), "no malformed packets or expert warnings");
        }
    }

    private static int length(int message) {
        return message % 2 == 0 ? LONG : SHORT;
    }

    private static List<CompletionStatus> await(CompletionQueue cq, int n) throws InterruptedException {
        List<CompletionStatus> out = new ArrayList<>();
        WorkCompletions wc = new WorkCompletions(64);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (out.size() < n) {
            if (System.nanoTime() > deadline) {
                fail("only " + out.size() + " of " + n + " completions: " + out);
            }
            int got = cq.poll(wc);
            if (got == 0) {
                cq.await(10, TimeUnit.MILLISECONDS);
            }
            for (int i = 0; i < got; i++) {
                out.add(wc.status(i));
            }
        }
        return out;
    }

    private static <T> List<T> distinct(List<T> list) {
        return list.stream().distinct().toList();
    }

    private static String tshark(String... args) throws Exception {
        return Tshark.run(args);
    }
}
