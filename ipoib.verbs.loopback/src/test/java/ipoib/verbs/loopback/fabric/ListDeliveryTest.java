package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.WorkCompletions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A send list delivered as runs (one claim of each completion queue, one receive-queue lock per
 * run) fares exactly as the same requests posted one by one: the same completions in the same
 * order, the same drops when a queue overflows, the same faults drawn per datagram.
 */
class ListDeliveryTest {
    private static final QKey QKEY = QKey.of(0x0b1b);
    private static final int BUFFER = 2048 + 64;

    /** A queue pair with its own send and receive completion queues of the given capacities. */
    private static final class Side implements AutoCloseable {
        final LoopPort port;
        final LoopCompletionQueue sendCq;
        final LoopCompletionQueue recvCq;
        final UdQueuePair qp;
        final MemorySegment memory = Arena.ofAuto().allocate((long) BUFFER * 128);
        final MemoryRegion region;

        Side(LoopPort port, int sendCqCapacity, int recvCqCapacity) {
            this.port = port;
            sendCq = (LoopCompletionQueue) port.createCompletionQueue(sendCqCapacity);
            recvCq = (LoopCompletionQueue) port.createCompletionQueue(recvCqCapacity);
            qp = port.createUdQueuePair(new UdQueuePairConfig(sendCq, recvCq, 64, 64, 0, QKEY, true));
            region = port.device().registerMemory(memory);
        }

        void postReceives(int count) {
            for (int i = 0; i < count; i++) {
                assertTrue(qp.postReceive(100 + i, region, (long) i * BUFFER, BUFFER));
            }
        }

        AddressHandle handleTo(Side other) {
            return port.createAddressHandle(AddressVector.local(Lid.of(other.port.lidValue()), 0));
        }

        /** Payload {@code i} (in the second half of the memory, after the receive buffers): {@code 20 + i} octets of {@code i + 1}. */
        long payload(int i) {
            long at = (64L + i) * BUFFER;
            memory.asSlice(at, 20 + i).fill((byte) (i + 1));
            return at;
        }

        @Override
        public void close() {
            qp.close();
            sendCq.close();
            recvCq.close();
            region.close();
        }
    }

    private static Fabric fabric(int hcas, long seed) {
        FabricConfig d = FabricConfig.defaults();
        Fabric f = new Fabric(new FabricConfig(hcas, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), seed));
        f.start();
        return f;
    }

    private static LoopPort port(Fabric f, int hca) {
        return f.devices().get(hca).loopPorts().get(0);
    }

    /** A list of room {@code capacity} holding payloads 0..n-1 of {@code from} (see {@link Side#payload}) to {@code to}. */
    private static SendWorkRequests payloads(Side from, AddressHandle ah, Side to, int n, int capacity) {
        SendWorkRequests list = new SendWorkRequests(capacity);
        for (int i = 0; i < n; i++) {
            list.add(i, from.region, from.payload(i), 20 + i, ah, to.qp.qpn(), QKEY);
        }
        return list;
    }

    /** Every completion the queue holds, rendered with all its fields, in order. */
    private static List<String> drain(LoopCompletionQueue cq) {
        List<String> out = new ArrayList<>();
        WorkCompletions c = new WorkCompletions(16);
        int n;
        while ((n = cq.poll(c)) > 0) {
            for (int i = 0; i < n; i++) {
                out.add(c.workRequestId(i) + " " + c.status(i) + " op" + c.opcode(i) + " len" + c.byteLength(i) + " qp"
                        + c.queuePairNumber(i) + " src" + c.sourceQpn(i) + " lid" + c.sourceLid(i) + " sl"
                        + c.serviceLevel(i) + " pk" + c.pkeyIndex(i) + " grh" + c.grhPresent(i));
            }
        }
        return out;
    }

    /** What one run produced: both sides' completions, the received payloads, the fabric's counters. */
    private record Outcome(List<String> sendCompletions, List<String> receiveCompletions, List<String> payloads,
                           java.util.Map<String, Long> counters) {
    }

    /**
     * Sends {@code count} datagrams from a to b on a fresh fabric, as one list or one by one; a's
     * datagram {@code tooLong} (if in range) is longer than the MTU.
     */
    private static Outcome run(boolean asList, int count, int receives, int recvCqCapacity, Faults faults,
                               int tooLong) {
        try (Fabric f = fabric(2, 7); Side a = new Side(port(f, 0), 64, 64);
             Side b = new Side(port(f, 1), 64, recvCqCapacity)) {
            f.setFaults(a.port, faults);
            b.postReceives(receives);
            AddressHandle ah = a.handleTo(b);
            SendWorkRequests list = new SendWorkRequests(count);
            for (int i = 0; i < count; i++) {
                int length = i == tooLong ? 4000 : 20 + i;
                long at = i == tooLong ? 0 : a.payload(i);
                if (asList) {
                    list.add(500 + i, a.region, at, length, ah, b.qp.qpn(), QKEY);
                } else {
                    assertTrue(a.qp.postSend(500 + i, a.region, at, length, ah, b.qp.qpn(), QKEY));
                }
            }
            if (asList) {
                assertEquals(count, a.qp.postSend(list));
            }
            List<String> received = drain(b.recvCq);
            List<String> payloads = new ArrayList<>();
            for (String r : received) {
                long slot = Long.parseLong(r.substring(0, r.indexOf(' '))) - 100;
                payloads.add(String.valueOf(b.memory.get(ValueLayout.JAVA_BYTE,
                        slot * BUFFER + UdQueuePair.GRH_AREA_LENGTH)));
            }
            return new Outcome(drain(a.sendCq), received, payloads, f.counters().snapshot());
        }
    }

    @Test
    void aListCompletesAsTheSameRequestsPostedOneByOne() {
        Outcome single = run(false, 12, 16, 64, Faults.NONE, 5);
        Outcome list = run(true, 12, 16, 64, Faults.NONE, 5);
        assertEquals(12, single.sendCompletions().size());
        assertTrue(single.sendCompletions().get(5).contains("LOCAL_LENGTH_ERROR"), single.sendCompletions().get(5));
        assertEquals(11, single.receiveCompletions().size());
        assertEquals(single.sendCompletions(), list.sendCompletions());
        assertEquals(single.receiveCompletions(), list.receiveCompletions());
        assertEquals(single.payloads(), list.payloads());
        assertEquals(single.counters(), list.counters());
    }

    @Test
    void aListTakesOneClaimOfEachCompletionQueue() {
        try (Fabric f = fabric(2, 1); Side a = new Side(port(f, 0), 64, 64); Side b = new Side(port(f, 1), 64, 64)) {
            b.postReceives(16);
            AddressHandle ah = a.handleTo(b);
            SendWorkRequests list = payloads(a, ah, b, 16, 16);
            long sendClaims = a.sendCq.claims();
            long receiveClaims = b.recvCq.claims();
            assertEquals(16, a.qp.postSend(list));
            assertEquals(1, a.sendCq.claims() - sendClaims, "one claim of the send completion queue");
            assertEquals(1, b.recvCq.claims() - receiveClaims, "one claim of the receive completion queue");
            assertEquals(16, drain(b.recvCq).size());
            assertEquals(16, drain(a.sendCq).size());
        }
    }

    /**
     * A queue pair's own completion queues are filled under its send and receive locks, without
     * a CAS; a queue that a second queue pair also completes into, or that takes both directions
     * of one, claims with the CAS, and datagrams keep arriving across the change.
     */
    @Test
    void completionQueuesOfOneQueuePairClaimWithoutACasAndSharedOnesWithIt() {
        try (Fabric f = fabric(2, 1); Side a = new Side(port(f, 0), 64, 64); Side b = new Side(port(f, 1), 64, 64)) {
            assertTrue(a.sendCq.claimsWithoutCas());
            assertTrue(b.recvCq.claimsWithoutCas());
            b.postReceives(2);
            AddressHandle ah = a.handleTo(b);
            assertTrue(a.qp.postSend(1, a.region, a.payload(0), 20, ah, b.qp.qpn(), QKEY));
            UdQueuePair second = b.port.createUdQueuePair(new UdQueuePairConfig(b.sendCq, b.recvCq, 8, 8, 0, QKEY, true));
            assertFalse(b.recvCq.claimsWithoutCas(), "two queue pairs complete into it");
            assertFalse(b.sendCq.claimsWithoutCas());
            assertTrue(a.qp.postSend(2, a.region, a.payload(1), 21, ah, b.qp.qpn(), QKEY));
            assertEquals(2, drain(b.recvCq).size());
            LoopCompletionQueue both = (LoopCompletionQueue) a.port.createCompletionQueue(16);
            UdQueuePair oneQueue = a.port.createUdQueuePair(new UdQueuePairConfig(both, both, 8, 8, 0, QKEY, true));
            assertFalse(both.claimsWithoutCas(), "the sends and the receives of one queue pair");
            oneQueue.close();
            second.close();
            both.close();
        }
    }

    @Test
    void aRunPerDestinationInListOrder() {
        try (Fabric f = fabric(3, 1); Side a = new Side(port(f, 0), 64, 64); Side b = new Side(port(f, 1), 64, 64);
             Side c = new Side(port(f, 2), 64, 64)) {
            b.postReceives(8);
            c.postReceives(8);
            AddressHandle toB = a.handleTo(b);
            AddressHandle toC = a.handleTo(c);
            SendWorkRequests list = new SendWorkRequests(8);
            // b, b, c, c, c, b, c, b: four runs
            int[] to = {1, 1, 2, 2, 2, 1, 2, 1};
            for (int i = 0; i < to.length; i++) {
                Side d = to[i] == 1 ? b : c;
                list.add(i, a.region, a.payload(i), 20 + i, to[i] == 1 ? toB : toC, d.qp.qpn(), QKEY);
            }
            long claims = b.recvCq.claims();
            assertEquals(8, a.qp.postSend(list));
            assertEquals(3, b.recvCq.claims() - claims, "b's three runs, one claim each");
            List<String> atB = drain(b.recvCq);
            List<String> atC = drain(c.recvCq);
            assertEquals(4, atB.size());
            assertEquals(4, atC.size());
            int[] lengthsAtB = {20, 21, 25, 27};
            for (int k = 0; k < 4; k++) {
                assertTrue(atB.get(k).contains(" len" + (lengthsAtB[k] + UdQueuePair.GRH_AREA_LENGTH) + " "),
                        "b's datagrams in list order: " + atB);
            }
            assertEquals(8, f.counters().delivered());
        }
    }

    @Test
    void aListOverflowingTheReceiveCompletionQueueDropsTheRestAsOverrunAndKeepsTheirBuffers() {
        Outcome single = run(false, 10, 16, 4, Faults.NONE, -1);
        Outcome list = run(true, 10, 16, 4, Faults.NONE, -1);
        assertEquals(4, list.receiveCompletions().size());
        assertEquals(6L, list.counters().get("drop_cq_overrun"));
        assertEquals(single.receiveCompletions(), list.receiveCompletions());
        assertEquals(single.counters(), list.counters());
        assertEquals(10, list.sendCompletions().size(), "every send completes: the loss is the receiver's");

        // The buffers of the overrun datagrams stay posted: the next datagram takes the fifth one.
        try (Fabric f = fabric(2, 1); Side a = new Side(port(f, 0), 64, 64); Side b = new Side(port(f, 1), 64, 4)) {
            b.postReceives(8);
            AddressHandle ah = a.handleTo(b);
            SendWorkRequests sends = payloads(a, ah, b, 6, 8);
            assertEquals(6, a.qp.postSend(sends));
            assertEquals(List.of(100L, 101L, 102L, 103L), wrIds(drain(b.recvCq)));
            sends.clear();
            sends.add(9, a.region, a.payload(0), 20, ah, b.qp.qpn(), QKEY);
            assertEquals(1, a.qp.postSend(sends));
            assertEquals(List.of(104L), wrIds(drain(b.recvCq)));
        }
    }

    private static List<Long> wrIds(List<String> completions) {
        List<Long> out = new ArrayList<>();
        for (String c : completions) {
            out.add(Long.parseLong(c.substring(0, c.indexOf(' '))));
        }
        return out;
    }

    @Test
    void aListBeyondThePostedBuffersDropsTheRestForWantOfABuffer() {
        Outcome single = run(false, 10, 6, 64, Faults.NONE, -1);
        Outcome list = run(true, 10, 6, 64, Faults.NONE, -1);
        assertEquals(6, list.receiveCompletions().size());
        assertEquals(4L, list.counters().get("drop_no_receive_buffer"));
        assertEquals(single.receiveCompletions(), list.receiveCompletions());
        assertEquals(single.counters(), list.counters());
    }

    @Test
    void aListLongerThanTheSendCompletionQueueIsTakenAsFarAsItHasRoom() {
        try (Fabric f = fabric(2, 1); Side a = new Side(port(f, 0), 8, 64); Side b = new Side(port(f, 1), 64, 64)) {
            b.postReceives(16);
            AddressHandle ah = a.handleTo(b);
            SendWorkRequests list = payloads(a, ah, b, 12, 12);
            assertEquals(8, a.qp.postSend(list), "the send completion queue holds 8");
            assertEquals(8, drain(b.recvCq).size(), "only what was posted is delivered");
            list.removeFirst(8);
            assertEquals(0, a.qp.postSend(list), "nothing while the send completion queue is full");
            assertEquals(8, drain(a.sendCq).size());
            assertEquals(4, a.qp.postSend(list), "the rest once it was polled");
        }
    }

    @Test
    void faultsAreDrawnPerDatagramWithinAList() {
        Faults lossy = new Faults(40, 0, 0, 0, 30);
        Outcome single = run(false, 40, 60, 64, lossy, -1);
        Outcome list = run(true, 40, 60, 64, lossy, -1);
        long lost = list.counters().get("drop_fault_loss");
        long corrupt = list.counters().get("drop_fault_corrupt_crc");
        assertTrue(lost > 0 && corrupt > 0 && lost + corrupt < 40, "some of the 40 lost, some corrupted, some not: "
                + list.counters());
        assertEquals(40 - lost - corrupt, list.receiveCompletions().size());
        // The same seed draws the same faults for the same datagrams, listed or not.
        assertEquals(single.receiveCompletions(), list.receiveCompletions());
        assertEquals(single.payloads(), list.payloads());
        assertEquals(single.counters(), list.counters());
    }
}
