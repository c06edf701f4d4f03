package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.RcQueuePairEvent;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RC transport of the loopback fabric as an HCA runs it: whole messages in order over packets
 * of the path MTU, losses and reordering repaired by retransmission, RNR waits, retry exhaustion.
 */
class RcTransportTest {
    private static final int MESSAGE = 65_520; // IPoIB connected mode's largest MTU: 32 packets of 2048
    /** 67 ms ACK timeout, 7 retries: eight timeouts without progress (0.5 s) before a send fails. */
    private static final RcSendAttributes FAST = new RcSendAttributes(0x100, 14, 7, 7);
    /** A 68.7 s ACK timeout: no retransmission can come from a sender thread that was merely descheduled. */
    private static final RcSendAttributes PATIENT = new RcSendAttributes(0x100, 24, 7, 7);

    private final List<Fabric> fabrics = new ArrayList<>();
    private final Arena arena = Arena.ofShared();

    @AfterEach
    void close() {
        fabrics.forEach(Fabric::close);
        arena.close();
    }

    /** One side of a connection: an RC QP with its CQs and a registered buffer area. */
    private final class Side {
        final LoopPort port;
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        final RcQueuePair qp;
        final MemorySegment memory = arena.allocate(64 * MESSAGE);
        final MemoryRegion region;
        final WorkCompletions completions = new WorkCompletions(256);

        Side(LoopPort port, SharedReceiveQueue srq, int sendDepth) {
            this.port = port;
            sendCq = port.createCompletionQueue(1024);
            recvCq = port.createCompletionQueue(1024);
            qp = port.createRcQueuePair(new RcQueuePairConfig(sendCq, recvCq, srq, sendDepth, 64, 0));
            region = port.device.registerMemory(memory);
        }

        void connectTo(Side peer, RcSendAttributes send) {
            qp.readyToReceive(new RcReceiveAttributes(peer.qp.qpn(), AddressVector.local(Lid.of(peer.port.lidValue()), 0),
                    IbMtu.MTU_2048, 0x100));
            qp.readyToSend(send);
        }

        /** Polls until {@code n} completions came from {@code cq} or 20 s passed; returns their statuses. */
        List<CompletionStatus> await(CompletionQueue cq, int n, List<Integer> lengths) throws InterruptedException {
            List<CompletionStatus> out = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (out.size() < n) {
                if (cq.poll(completions) == 0) {
                    if (System.nanoTime() > deadline) {
                        fail("only " + out.size() + " of " + n + " completions: " + out + ", fabric " + fabrics.get(0).counters().snapshot());
                    }
                    cq.await(10, TimeUnit.MILLISECONDS);
                    continue;
                }
                for (int i = 0; i < completions.count(); i++) {
                    out.add(completions.status(i));
                    if (lengths != null) {
                        lengths.add(completions.byteLength(i));
                    }
                }
            }
            return out;
        }
    }

    private Fabric fabric() {
        FabricConfig d = FabricConfig.defaults();
        Fabric f = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 7));
        f.start();
        fabrics.add(f);
        return f;
    }

    private static LoopPort port(Fabric f, int hca) {
        return f.devices().get(hca).loopPorts().get(0);
    }

    private Side[] connected(Fabric f, RcSendAttributes send) {
        Side a = new Side(port(f, 0), null, 16);
        Side b = new Side(port(f, 1), null, 16);
        a.connectTo(b, send);
        b.connectTo(a, send);
        return new Side[] {a, b};
    }

    /** Sends {@code count} messages of random content and lengths from a to b; checks them byte for byte. */
    private void transferAndCompare(Side a, Side b, int count, long seed) throws InterruptedException {
        Random r = new Random(seed);
        int[] lengths = new int[count];
        for (int m = 0; m < count; m++) {
            lengths[m] = m == 0 ? MESSAGE : r.nextInt(MESSAGE + 1);
            assertTrue(b.qp.postReceive(m, b.region, (long) m * MESSAGE, MESSAGE));
        }
        for (int m = 0; m < count; m++) {
            byte[] data = new byte[lengths[m]];
            r.nextBytes(data);
            MemorySegment.copy(data, 0, a.memory, ValueLayout.JAVA_BYTE, (long) m * MESSAGE, data.length);
            assertTrue(a.qp.postSend(1000 + m, a.region, (long) m * MESSAGE, lengths[m]));
        }
        List<Integer> received = new ArrayList<>();
        List<CompletionStatus> rx = b.await(b.recvCq, count, received);
        assertEquals(List.of(CompletionStatus.SUCCESS), rx.stream().distinct().toList(), "receives");
        assertEquals(List.of(CompletionStatus.SUCCESS), a.await(a.sendCq, count, null).stream().distinct().toList(), "sends");
        for (int m = 0; m < count; m++) {
            assertEquals(lengths[m], received.get(m), "message " + m + " length");
            assertArrayEquals(a.memory.asSlice((long) m * MESSAGE, lengths[m]).toArray(ValueLayout.JAVA_BYTE),
                    b.memory.asSlice((long) m * MESSAGE, lengths[m]).toArray(ValueLayout.JAVA_BYTE), "message " + m);
        }
    }

    @Test
    void messagesLargerThanThePathMtuArriveWholeAndInOrder() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, PATIENT);
        transferAndCompare(s[0], s[1], 16, 1);
        // 16 messages of up to 32 packets each, no fault: no packet was sent twice
        assertEquals(0, f.counters().rcRetransmitted());
        assertTrue(f.counters().snapshot().get("rc_sent") > 16);
    }

    @Test
    void aMessageIsCountedPacketByPacketAndEachPacketAcknowledged() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, PATIENT);
        transferAndCompare(s[0], s[1], 1, 5); // one message of 65 520 octets: 32 packets of 2048
        long before = f.counters().sentPackets();
        assertEquals(32, f.counters().snapshot().get("rc_sent"));
        assertEquals(32, before);
        assertEquals(32, f.counters().delivered());
        assertEquals(32, s[0].port.rcCounters().packets());
        assertEquals(32, s[1].port.rcCounters().acks());
        assertEquals(0, s[1].port.rcCounters().naks());
    }

    @Test
    void aMessageOfManyPacketsWaitsWithRnrNaksForABuffer() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, FAST);
        byte[] data = new byte[5000]; // three packets
        new Random(3).nextBytes(data);
        MemorySegment.copy(data, 0, s[0].memory, ValueLayout.JAVA_BYTE, 0, data.length);
        assertTrue(s[0].qp.postSend(1, s[0].region, 0, data.length));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (f.counters().snapshot().get("rc_rnr_naks") < 2) {
            assertTrue(System.nanoTime() < deadline, "RNR NAKs expected while no buffer is posted");
            Thread.onSpinWait();
        }
        assertTrue(s[1].qp.postReceive(7, s[1].region, 0, 8192));
        List<Integer> lengths = new ArrayList<>();
        assertEquals(List.of(CompletionStatus.SUCCESS), s[1].await(s[1].recvCq, 1, lengths));
        assertEquals(List.of(data.length), lengths);
        assertArrayEquals(data, s[1].memory.asSlice(0, data.length).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(List.of(CompletionStatus.SUCCESS), s[0].await(s[0].sendCq, 1, null));
    }

    @Test
    void lossAndReorderingAreRepairedByRetransmission() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, FAST);
        f.setFaults(null, new Faults(10, 5, 10, 0, 2));
        transferAndCompare(s[0], s[1], 16, 2);
        assertTrue(f.counters().rcRetransmitted() > 0, "losses must have been repaired by retransmission");
        assertTrue(f.counters().drops(DropReason.FAULT_LOSS) > 0);
    }

    @Test
    void aReceiverWithoutBuffersIsWaitedForWithRnrNaks() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, FAST);
        MemorySegment.copy(new byte[] {1, 2, 3}, 0, s[0].memory, ValueLayout.JAVA_BYTE, 0, 3);
        assertTrue(s[0].qp.postSend(1, s[0].region, 0, 3));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (f.counters().snapshot().get("rc_rnr_naks") < 3) {
            assertTrue(System.nanoTime() < deadline, "RNR NAKs expected while no buffer is posted");
            Thread.onSpinWait();
        }
        assertTrue(s[1].qp.postReceive(7, s[1].region, 0, 100));
        List<Integer> lengths = new ArrayList<>();
        assertEquals(List.of(CompletionStatus.SUCCESS), s[1].await(s[1].recvCq, 1, lengths));
        assertEquals(List.of(3), lengths);
        assertEquals(List.of(CompletionStatus.SUCCESS), s[0].await(s[0].sendCq, 1, null));
    }

    @Test
    void aVanishedPeerFailsTheSendWithRetryExceededAndFlushesTheRest() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, new RcSendAttributes(0x100, 10, 3, 7)); // 4.2 ms timeout, 3 retries
        s[1].qp.close();
        assertTrue(s[0].qp.postSend(1, s[0].region, 0, 100));
        assertTrue(s[0].qp.postSend(2, s[0].region, 0, 100));
        assertEquals(List.of(CompletionStatus.RETRY_EXCEEDED, CompletionStatus.WORK_REQUEST_FLUSH_ERROR),
                s[0].await(s[0].sendCq, 2, null));
        assertEquals(QueuePairState.ERROR, s[0].qp.state());
        assertEquals(3, f.counters().snapshot().get("rc_ack_timeouts"), "one retransmission per retry");
        // In ERROR new work completes at once with a flush error.
        assertTrue(s[0].qp.postSend(3, s[0].region, 0, 100));
        assertEquals(List.of(CompletionStatus.WORK_REQUEST_FLUSH_ERROR), s[0].await(s[0].sendCq, 1, null));
    }

    @Test
    void aMessageLongerThanTheBufferFailsBothSides() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, FAST);
        assertTrue(s[1].qp.postReceive(1, s[1].region, 0, 1000));
        assertTrue(s[0].qp.postSend(2, s[0].region, 0, 5000));
        assertEquals(List.of(CompletionStatus.LOCAL_LENGTH_ERROR), s[1].await(s[1].recvCq, 1, null));
        assertEquals(List.of(CompletionStatus.REMOTE_INVALID_REQUEST_ERROR), s[0].await(s[0].sendCq, 1, null));
    }

    @Test
    void aSharedReceiveQueueFeedsEveryConnection() throws Exception {
        Fabric f = fabric();
        SharedReceiveQueue srq = port(f, 1).createSharedReceiveQueue(64);
        Side b1 = new Side(port(f, 1), srq, 16);
        Side b2 = new Side(port(f, 1), srq, 16);
        Side a1 = new Side(port(f, 0), null, 16);
        Side a2 = new Side(port(f, 0), null, 16);
        a1.connectTo(b1, FAST);
        b1.connectTo(a1, FAST);
        a2.connectTo(b2, FAST);
        b2.connectTo(a2, FAST);
        assertThrows(VerbsException.class, () -> b1.qp.postReceive(0, b1.region, 0, 10));
        for (int i = 0; i < 4; i++) {
            assertTrue(srq.postReceive(i, b1.region, i * 100L, 100));
        }
        assertTrue(a1.qp.postSend(1, a1.region, 0, 10));
        assertTrue(a2.qp.postSend(2, a2.region, 0, 20));
        assertEquals(List.of(CompletionStatus.SUCCESS), b1.await(b1.recvCq, 1, null));
        assertEquals(List.of(CompletionStatus.SUCCESS), b2.await(b2.recvCq, 1, null));
    }

    @Test
    void theRcDataPathAllocatesNothingPerMessage() {
        Fabric f = fabric();
        Side[] s = connected(f, PATIENT); // no ACK timer fires during the run
        Side a = s[0];
        Side b = s[1];
        Runnable round = () -> {
            b.qp.postReceive(1, b.region, 0, 8192);
            a.qp.postSend(1, a.region, 0, 4096); // two packets of 2048, each acknowledged
            while (a.sendCq.poll(a.completions) == 0) {
                Thread.onSpinWait();
            }
            while (b.recvCq.poll(b.completions) == 0) {
                Thread.onSpinWait();
            }
        };
        for (int i = 0; i < 20_000; i++) {
            round.run();
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++) {
            round.run();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // One object per message would be at least 160 000 bytes.
        assertTrue(allocated < 10_000, allocated + " bytes allocated by 10 000 RC messages");
        assertEquals(0, f.counters().rcRetransmitted());
    }

    @Test
    void communicationEstablishedOnceInRtrAndLastWqeReachedWhenAnSrqQueuePairFails() throws Exception {
        Fabric f = fabric();
        SharedReceiveQueue srq = port(f, 1).createSharedReceiveQueue(8);
        Side a = new Side(port(f, 0), null, 4);
        Side b = new Side(port(f, 1), srq, 4);
        java.util.concurrent.LinkedBlockingQueue<RcQueuePairEvent> events = new java.util.concurrent.LinkedBlockingQueue<>();
        b.qp.addEventListener(events::add);
        a.connectTo(b, FAST);
        // b stays in RTR (its RTU lost, say): the first packet that reaches it establishes the connection.
        b.qp.readyToReceive(new RcReceiveAttributes(a.qp.qpn(), AddressVector.local(Lid.of(a.port.lidValue()), 0),
                IbMtu.MTU_2048, 0x100));
        assertTrue(srq.postReceive(1, b.region, 0, 100));
        assertTrue(srq.postReceive(2, b.region, 100, 100));
        assertTrue(a.qp.postSend(1, a.region, 0, 10));
        assertTrue(a.qp.postSend(2, a.region, 0, 10));
        assertEquals(List.of(CompletionStatus.SUCCESS, CompletionStatus.SUCCESS), b.await(b.recvCq, 2, null));
        assertEquals(new RcQueuePairEvent(b.qp, RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED),
                events.poll(5, TimeUnit.SECONDS));
        b.qp.toError();
        assertEquals(new RcQueuePairEvent(b.qp, RcQueuePairEvent.Type.LAST_WQE_REACHED), events.poll(5, TimeUnit.SECONDS));
        assertTrue(events.isEmpty(), "each once: " + events);
        assertTrue(port(f, 0).connectedModeSupport().available(), port(f, 0).connectedModeSupport().reason());
    }

    @Test
    void theStateMachineRefusesOutOfOrderTransitionsAndSendsBeforeRts() {
        Fabric f = fabric();
        Side a = new Side(port(f, 0), null, 4);
        Side b = new Side(port(f, 1), null, 4);
        assertEquals(QueuePairState.INIT, a.qp.state());
        VerbsException early = assertThrows(VerbsException.class, () -> a.qp.postSend(1, a.region, 0, 1));
        assertTrue(early.getMessage().contains("is INIT, not RTS"), early.getMessage());
        assertThrows(VerbsException.class, () -> a.qp.readyToSend(FAST));
        a.connectTo(b, FAST);
        assertEquals(QueuePairState.RTS, a.qp.state());
        assertThrows(VerbsException.class, () -> a.qp.readyToReceive(new RcReceiveAttributes(b.qp.qpn(),
                AddressVector.local(Lid.of(b.port.lidValue()), 0), IbMtu.MTU_2048, 0)));
        assertFalse(b.qp.state() == QueuePairState.RTS);
    }

    @Test
    void aPortResetMovesItsConnectionsToError() throws Exception {
        Fabric f = fabric();
        Side[] s = connected(f, FAST);
        assertTrue(s[1].qp.postReceive(5, s[1].region, 0, 100));
        f.resetPort(s[1].port);
        assertEquals(QueuePairState.ERROR, s[1].qp.state());
        assertEquals(List.of(CompletionStatus.WORK_REQUEST_FLUSH_ERROR), s[1].await(s[1].recvCq, 1, null));
    }
}
