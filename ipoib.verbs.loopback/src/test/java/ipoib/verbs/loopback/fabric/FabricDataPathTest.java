package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.QueuePairState;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The data-path rules of the loopback fabric; each test fails if its rule is removed. */
class FabricDataPathTest {
    static final QKey QKEY = QKey.of(0x0b1b);
    static final PKey FULL = PKey.of(0xffff);
    static final PKey LIMITED = PKey.of(0x7fff);

    private final List<Fabric> fabrics = new ArrayList<>();

    private Fabric fabric(String... partitions) {
        return fabric(null, partitions);
    }

    /** A fabric whose events and timers run on {@code events} (null: its own thread). */
    private Fabric fabric(ipoib.runtime.ControlLoop events, String... partitions) {
        List<PartitionConfig> parts = new ArrayList<>();
        for (String p : partitions) {
            parts.add(PartitionConfig.parse(p));
        }
        FabricConfig defaults = FabricConfig.defaults();
        Fabric f = new Fabric(new FabricConfig(3, 1, defaults.subnetPrefix(), defaults.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, parts.isEmpty() ? defaults.partitions() : parts, 42), events);
        f.start();
        fabrics.add(f);
        return f;
    }

    private static LoopPort port(Fabric f, int hca) {
        return f.devices().get(hca).loopPorts().get(0);
    }

    @AfterEach
    void close() {
        fabrics.forEach(Fabric::close);
    }

    @Test
    void unicastDeliversIntoThePostedBufferBehindTheGrhArea() throws Exception {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 7));
            assertEquals(1, b.poll());
            WorkCompletions c = b.completions;
            assertEquals(CompletionStatus.SUCCESS, c.status(0));
            assertEquals(WorkCompletions.OPCODE_RECEIVE, c.opcode(0));
            assertEquals(100 + UdQueuePair.GRH_AREA_LENGTH, c.byteLength(0), "byte length counts the GRH area");
            assertEquals(a.qp.qpn().value(), c.sourceQpn(0));
            assertEquals(a.port.lidValue(), c.sourceLid(0));
            assertFalse(c.grhPresent(0), "a local unicast carries no GRH");
            assertEquals(7, b.payloadByte(0, 0));
            assertEquals(7, b.payloadByte(0, 99));
            assertEquals(1, a.poll());
            assertEquals(WorkCompletions.OPCODE_SEND, a.completions.opcode(0));
            assertEquals(CompletionStatus.SUCCESS, a.completions.status(0));
        }
    }

    @Test
    void limitedMembersTalkToFullMembersButNotToEachOther() {
        Fabric f = fabric("Default=0x7fff, ipoib : loop0=full, loop1=limited, loop2=limited ;");
        try (Endpoint full = new Endpoint(port(f, 0), FULL, QKEY, 0);
             Endpoint limitedA = new Endpoint(port(f, 1), LIMITED, QKEY, 4);
             Endpoint limitedB = new Endpoint(port(f, 2), LIMITED, QKEY, 4)) {
            full.send(full.handleTo(limitedA), limitedA.qp.qpn(), QKEY, 10, (byte) 1);
            assertEquals(1, limitedA.poll(), "full → limited is allowed");
            limitedB.send(limitedB.handleTo(limitedA), limitedA.qp.qpn(), QKEY, 10, (byte) 1);
            assertEquals(0, limitedA.poll(), "limited → limited is dropped");
            assertEquals(1, f.counters().drops(DropReason.PKEY_MISMATCH));
        }
    }

    @Test
    void differentPartitionsDoNotTalk() {
        Fabric f = fabric("Default=0x7fff : ALL=full ;", "Storage=0x0001 : loop0=full, loop1=full ;");
        try (Endpoint a = new Endpoint(port(f, 0), PKey.of(0x8001), QKEY, 0);
             Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 10, (byte) 1);
            assertEquals(0, b.poll());
            assertEquals(1, f.counters().drops(DropReason.PKEY_MISMATCH));
        }
    }

    @Test
    void wrongQKeyIsDroppedAndCounted() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            a.send(a.handleTo(b), b.qp.qpn(), QKey.of(0x1234), 10, (byte) 1);
            assertEquals(0, b.poll());
            assertEquals(1, f.counters().drops(DropReason.QKEY_MISMATCH));
            // the receiving port counts it, as an HCA's Q_KeyViolations counter does; the sender's does not
            assertEquals(1, port(f, 1).qkeyViolations());
            assertEquals(0, port(f, 0).qkeyViolations());
        }
    }

    @Test
    void controlledQKeyNeedsAPrivilegedQueuePair() {
        Fabric f = fabric();
        LoopPort p = port(f, 0);
        var cq = p.createCompletionQueue(8);
        VerbsException e = assertThrows(VerbsException.class, () -> p.createUdQueuePair(
                new UdQueuePairConfig(cq, cq, 4, 4, 0, QKey.of(0x80010000), false)));
        assertTrue(e.getMessage().contains("controlled"), e.getMessage());
        p.createUdQueuePair(new UdQueuePairConfig(cq, cq, 4, 4, 0, QKey.of(0x80010000), true)).close();
    }

    @Test
    void workRequestQKeyWithHighBitUsesTheQueuePairsOwnQKey() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            a.send(a.handleTo(b), b.qp.qpn(), QKey.of(0x80000000), 10, (byte) 1);
            assertEquals(1, b.poll(), "IBA 10.2.4.2: the QP's Q_Key (0x0b1b) went on the wire");
        }
    }

    @Test
    void sendLargerThanTheMtuCompletesWithALengthError() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 2049, (byte) 1);
            assertEquals(1, a.poll());
            assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, a.completions.status(0));
            assertEquals(0, b.poll());
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 2048, (byte) 1);
            assertEquals(1, b.poll(), "exactly the MTU fits");
        }
    }

    @Test
    void noPostedReceiveBufferMeansADropThatIsCounted() {
        Fabric f = fabric();
        f.receiveBufferHold(java.time.Duration.ZERO); // as an HCA: no hold (ReceiveBufferHoldTest)
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 1)) {
            AddressHandle ah = a.handleTo(b);
            a.send(ah, b.qp.qpn(), QKEY, 10, (byte) 1);
            a.send(ah, b.qp.qpn(), QKEY, 10, (byte) 2);
            assertEquals(1, b.poll());
            assertEquals(1, f.counters().drops(DropReason.NO_RECEIVE_BUFFER));
            assertEquals(1, port(f, 1).receiveBufferDrops(), "counted at the receiving port");
        }
    }

    @Test
    void completionsArriveInPostingOrder() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 32)) {
            AddressHandle ah = a.handleTo(b);
            for (int i = 0; i < 20; i++) {
                a.send(ah, b.qp.qpn(), QKEY, 1, (byte) i);
            }
            assertEquals(20, b.poll());
            for (int i = 0; i < 20; i++) {
                assertEquals(i, b.payloadByte(i, 0));
            }
        }
    }

    @Test
    void qpnsAreNotSequentialFromOneAndAResetGivesNewOnes() throws Exception {
        Fabric f = fabric();
        LoopPort p = port(f, 0);
        List<Integer> qpns = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Endpoint e = new Endpoint(p, FULL, QKEY, 0);
            qpns.add(e.qp.qpn().value());
            e.close();
        }
        assertTrue(qpns.get(0) > 1, "QPN 0 and 1 are reserved: " + qpns);
        boolean strideOne = true;
        for (int i = 1; i < qpns.size(); i++) {
            assertTrue(qpns.get(i) > qpns.get(i - 1), "increasing: " + qpns);
            strideOne &= qpns.get(i) - qpns.get(i - 1) == 1;
        }
        assertFalse(strideOne, "not plainly sequential: " + qpns);
        Endpoint before = new Endpoint(p, FULL, QKEY, 2);
        List<PortEvent.Type> events = new CopyOnWriteArrayList<>();
        p.addEventListener(e -> events.add(e.type()));
        f.resetPort(p);
        assertEquals(QueuePairState.ERROR, before.qp.state(), "a reset fails the port's queue pairs");
        before.poll();
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, before.completions.status(0));
        Endpoint after = new Endpoint(p, FULL, QKEY, 0);
        assertFalse(qpns.contains(after.qp.qpn().value()) || after.qp.qpn().equals(before.qp.qpn()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (events.size() < 3 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(List.of(PortEvent.Type.PORT_ERROR, PortEvent.Type.DEVICE_FATAL, PortEvent.Type.PORT_ACTIVE), events);
    }

    private MulticastGroup group(Fabric f, Gid creator) throws SaStatusException {
        Mgid mgid = Mgid.parse("ff12:401b:ffff::e000:1");
        McMemberRecord template = new McMemberRecord(mgid, creator, QKEY, Lid.UNASSIGNED, IbMtu.MTU_2048, 0, FULL,
                Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false);
        f.subnetManager().join(mgid, creator, JoinState.FULL_MEMBER.bit(), template);
        return f.subnetManager().group(mgid);
    }

    @Test
    void multicastReachesFullAndNonMembersButNotSendOnlyMembers() throws Exception {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 4); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4);
             Endpoint c = new Endpoint(port(f, 2), FULL, QKEY, 4)) {
            MulticastGroup g = group(f, a.port.gid(0));
            f.subnetManager().join(g.mgid(), b.port.gid(0), JoinState.NON_MEMBER.bit(), null);
            f.subnetManager().join(g.mgid(), c.port.gid(0), JoinState.SEND_ONLY_NON_MEMBER.bit(), null);
            for (Endpoint e : List.of(a, b, c)) {
                e.qp.attachMulticast(g.mgid().gid(), g.mlid());
            }
            c.send(c.handleToGroup(g), Qpn.MULTICAST, QKEY, 64, (byte) 9);
            assertEquals(1, a.poll(), "FullMember receives");
            assertTrue(a.completions.grhPresent(0), "every multicast packet has a GRH");
            assertEquals(g.mgid().gid(), a.grhDestination(0));
            assertEquals(1, b.poll(), "NonMember receives");
            c.poll();
            int received = 0;
            for (int i = 0; i < c.completions.count(); i++) {
                received += c.completions.opcode(i) == WorkCompletions.OPCODE_RECEIVE ? 1 : 0;
            }
            assertEquals(0, received, "SendOnlyNonMember does not receive");
        }
    }

    @Test
    void sendingToAGroupNeedsMembership() throws Exception {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 4); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            MulticastGroup g = group(f, a.port.gid(0));
            a.qp.attachMulticast(g.mgid().gid(), g.mlid());
            b.send(b.handleToGroup(g), Qpn.MULTICAST, QKEY, 10, (byte) 1);
            assertEquals(0, a.poll());
            assertEquals(1, f.counters().drops(DropReason.NOT_A_MEMBER));
        }
    }

    @Test
    void attachNeedsAnExistingGroup() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0)) {
            assertThrows(VerbsException.class, () -> a.qp.attachMulticast(Mgid.parse("ff12:401b:ffff::9").gid(),
                    Lid.of(0xc123)));
        }
    }

    @Test
    void lossFaultDropsEveryPacketAndCountsIt() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 8)) {
            f.setFaults(a.port, Faults.NONE.with(FaultKind.LOSS, 100));
            AddressHandle ah = a.handleTo(b);
            for (int i = 0; i < 5; i++) {
                a.send(ah, b.qp.qpn(), QKEY, 10, (byte) 1);
            }
            assertEquals(0, b.poll());
            assertEquals(5, f.counters().drops(DropReason.FAULT_LOSS));
        }
    }

    @Test
    void corruptedPacketsAreCaughtByTheCrcsAndDropped() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 8)) {
            f.setFaults(a.port, Faults.NONE.with(FaultKind.CORRUPT, 100));
            AddressHandle ah = a.handleTo(b);
            for (int i = 0; i < 20; i++) {
                a.send(ah, b.qp.qpn(), QKEY, 100, (byte) i);
            }
            assertEquals(0, b.poll());
            assertEquals(20, f.counters().drops(DropReason.FAULT_CORRUPT));
        }
    }

    @Test
    void duplicationDeliversTwice() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 8)) {
            f.setFaults(a.port, Faults.NONE.with(FaultKind.DUPLICATE, 100));
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 10, (byte) 1);
            assertEquals(2, b.poll());
        }
    }

    @Test
    void delayedPacketsArriveAfterTheDelayOnTheFabricsClock() throws Exception {
        ipoib.runtime.ManualControlLoop events = new ipoib.runtime.ManualControlLoop();
        Fabric f = fabric(events);
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 8)) {
            f.setFaults(a.port, Faults.NONE.with(FaultKind.DELAY, 50));
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 10, (byte) 1);
            events.advance(49, TimeUnit.MILLISECONDS);
            assertEquals(0, b.poll(), "not yet, 1 ms before the delay");
            events.advance(1, TimeUnit.MILLISECONDS);
            assertEquals(1, b.poll());
            assertEquals(1, f.counters().snapshot().get("delayed"));
        }
    }

    @Test
    void packetsHeldBackByTheDelayFaultAreBounded() {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 8)) {
            f.setFaults(a.port, Faults.NONE.with(FaultKind.DELAY, 60_000));
            AddressHandle ah = a.handleTo(b);
            int sends = FaultInjector.MAX_HELD_BACK + 100;
            for (int i = 0; i < sends; i++) {
                assertTrue(a.send(ah, b.qp.qpn(), QKEY, 1, (byte) i));
                a.poll();
            }
            assertEquals(100, f.counters().drops(DropReason.FAULT_DELAY_QUEUE_FULL));
        }
    }

    @Test
    void theSameSeedLosesTheSamePackets() {
        List<Integer> first = lossPattern();
        List<Integer> second = lossPattern();
        assertEquals(first, second);
        assertNotEquals(0, first.size());
        assertNotEquals(40, first.size());
    }

    private List<Integer> lossPattern() {
        Fabric f = fabric();
        List<Integer> delivered = new ArrayList<>();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 64)) {
            f.setFaults(a.port, Faults.NONE.with(FaultKind.LOSS, 30));
            AddressHandle ah = a.handleTo(b);
            for (int i = 0; i < 40; i++) {
                a.send(ah, b.qp.qpn(), QKEY, 1, (byte) i);
            }
            int n = b.poll();
            for (int i = 0; i < n; i++) {
                delivered.add((int) b.payloadByte(i, 0));
            }
        }
        return delivered;
    }

    @Test
    void lidChangeMovesTheRouteAndRaisesTheEvent() throws Exception {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4)) {
            List<PortEvent.Type> events = new CopyOnWriteArrayList<>();
            b.port.addEventListener(e -> events.add(e.type()));
            AddressHandle old = a.handleTo(b);
            f.changeLid(b.port, 0x40);
            a.send(old, b.qp.qpn(), QKEY, 10, (byte) 1);
            assertEquals(0, b.poll(), "the old LID leads nowhere");
            assertEquals(1, f.counters().drops(DropReason.NO_SUCH_LID));
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 10, (byte) 1);
            assertEquals(1, b.poll());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (events.isEmpty() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(List.of(PortEvent.Type.LID_CHANGE), events);
        }
    }

    @Test
    void sentAndDeliveredAreCountedOnTheSendingPortAndSummedWhenRead() throws Exception {
        Fabric f = fabric();
        try (Endpoint a = new Endpoint(port(f, 0), FULL, QKEY, 4); Endpoint b = new Endpoint(port(f, 1), FULL, QKEY, 4);
             Endpoint c = new Endpoint(port(f, 2), FULL, QKEY, 0)) {
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 10, (byte) 1));
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 10, (byte) 1));
            assertTrue(b.send(b.handleTo(a), a.qp.qpn(), QKEY, 10, (byte) 1));
            assertTrue(c.send(c.handleTo(a), Qpn.of(0xABCD), QKEY, 10, (byte) 1)); // no such QP: sent, not delivered
            assertEquals(2, a.port.packets.sum(LoopPort.SENT));
            assertEquals(2, a.port.packets.sum(LoopPort.DELIVERED));
            assertEquals(1, b.port.packets.sum(LoopPort.SENT));
            assertEquals(1, c.port.packets.sum(LoopPort.SENT));
            assertEquals(0, c.port.packets.sum(LoopPort.DELIVERED));
            assertEquals(4, f.counters().sentPackets());
            assertEquals(3, f.counters().delivered());
            assertEquals(4L, f.counters().snapshot().get("sent"));
            assertEquals(3L, f.counters().snapshot().get("delivered"));
        }
    }
}
