package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import ipoib.api.verbs.WorkCompletions;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.ManualControlLoop;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortCounter;
import ipoib.verbs.loopback.subnet.SwitchTables;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Packets through switches: the example topologies under examples/ loaded as the fabric's
 * topology, unicast hop by hop through the linear forwarding tables the emulated SM programs,
 * multicast through the multicast forwarding tables, drops counted at the switch port with their
 * reason, and the SM's reroute after an inter-switch link goes down.
 */
class SwitchedFabricTest {
    static final QKey QKEY = QKey.of(0x0b1b);
    static final PKey FULL = PKey.of(0xffff);
    /** A 100-octet UD payload without GRH on the wire (IBA 5.2, 9.2, 9.3): LRH 8, BTH 12, DETH 8, payload, ICRC 4, VCRC 2. */
    static final int UD_100_OCTETS = 8 + 12 + 8 + 100 + 4 + 2;

    private final List<Fabric> fabrics = new ArrayList<>();

    static Path example(String name) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("examples"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new AssertionError("no examples/ directory above " + Path.of("").toAbsolutePath());
        }
        return dir.resolve("examples").resolve(name);
    }

    private Fabric fabric(String example, ControlLoop events) {
        FabricConfig d = FabricConfig.defaults();
        Fabric f = new Fabric(new FabricConfig(1, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 7, 0, example(example).toString()), events);
        f.start();
        fabrics.add(f);
        return f;
    }

    @AfterEach
    void close() {
        fabrics.forEach(Fabric::close);
    }

    private static LoopPort hca(Fabric f, int index) {
        return f.devices().get(index).loopPorts().get(0);
    }

    private static Port switchPort(Fabric f, String node, int number) {
        return f.topology().node(node).port(number);
    }

    private static long count(Port p, PortCounter c) {
        return p.counters().get(c);
    }

    @Test
    void theDefaultTopologyIsTheHcasOnOneSwitchWithTodaysGuidsAndLids() {
        Fabric f = new Fabric(FabricConfig.defaults());
        fabrics.add(f);
        f.start();
        List<Node> switches = f.topology().nodes().stream().filter(Node::isSwitch).toList();
        assertEquals(1, switches.size());
        // The GUIDs the loopback always had: node base + 0x100 * (i + 1), port GUID node + p.
        assertEquals(0x0002_c903_0000_0101L, hca(f, 0).guid().value());
        assertEquals(0x0002_c903_0000_0201L, hca(f, 1).guid().value());
        assertEquals(SubnetManager.SM_LID, switches.get(0).port(0).lid(), "the SM's LID is the switch's port 0");
        assertEquals(2, hca(f, 0).lidValue());
        assertEquals(3, hca(f, 1).lidValue());
        assertEquals(hca(f, 0).model, switches.get(0).port(1).peer());
    }

    @Test
    void oneHopCrossesOneSwitchAndCountsAtBothOfItsPorts() throws Exception {
        Fabric f = fabric("two-switches.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 2), FULL, QKEY, 4)) {
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 7));
            assertEquals(1, b.poll());
            assertEquals(7, b.payloadByte(0, 99));
            Port in = switchPort(f, "sw1", 1);
            Port out = switchPort(f, "sw1", 2);
            assertEquals(1, count(in, PortCounter.RCV_PACKETS));
            assertEquals(UD_100_OCTETS, count(in, PortCounter.RCV_DATA_OCTETS));
            assertEquals(1, count(out, PortCounter.XMIT_PACKETS));
            assertEquals(UD_100_OCTETS, count(out, PortCounter.XMIT_DATA_OCTETS));
            assertEquals(1, count(hca(f, 0).model, PortCounter.XMIT_PACKETS));
            assertEquals(1, count(hca(f, 2).model, PortCounter.RCV_PACKETS));
            assertEquals(0, count(switchPort(f, "sw1", 7), PortCounter.XMIT_PACKETS)
                    + count(switchPort(f, "sw1", 8), PortCounter.XMIT_PACKETS), "nothing left the switch");
        }
    }

    @Test
    void threeHopsCrossLeafSpineAndLeafOfTheFatTree() throws Exception {
        Fabric f = fabric("fat-tree.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 3), FULL, QKEY, 4)) {
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 3));
            assertEquals(1, b.poll());
            assertEquals(3, b.payloadByte(0, 0));
            assertEquals(a.port.lidValue(), b.completions.sourceLid(0));
            long spines = count(switchPort(f, "spine1", 1), PortCounter.RCV_PACKETS)
                    + count(switchPort(f, "spine2", 1), PortCounter.RCV_PACKETS);
            assertEquals(1, spines, "one spine relayed it");
            assertEquals(1, count(switchPort(f, "leaf2", 2), PortCounter.XMIT_PACKETS));
            assertEquals(0, count(switchPort(f, "leaf2", 1), PortCounter.XMIT_PACKETS));
        }
    }

    @Test
    void aPostListIsCountedAsItsPacketsAtEveryPortOnTheWay() {
        Fabric f = fabric("fat-tree.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 3), FULL, QKEY, 0)) {
            ipoib.api.verbs.ReceiveWorkRequests receives = new ipoib.api.verbs.ReceiveWorkRequests(16);
            ipoib.api.verbs.SendWorkRequests sends = new ipoib.api.verbs.SendWorkRequests(16);
            AddressHandle ah = a.handleTo(b);
            for (int k = 0; k < 16; k++) {
                receives.add(64 + k, b.region, (64L + k) * Endpoint.BUFFER, Endpoint.BUFFER);
                sends.add(k, a.region, k * 128L, 100, ah, b.qp.qpn(), QKEY);
            }
            b.qp.postReceive(receives);
            a.qp.postSend(sends);
            assertEquals(16, b.poll());
            for (Port p : List.of(a.port.model, switchPort(f, "leaf2", 2))) {
                assertEquals(16, count(p, PortCounter.XMIT_PACKETS), p.toString());
                assertEquals(16L * UD_100_OCTETS, count(p, PortCounter.XMIT_DATA_OCTETS), p.toString());
                assertEquals(16, count(p, PortCounter.UNICAST_XMIT_PACKETS), p.toString());
            }
            assertEquals(16, count(b.port.model, PortCounter.RCV_PACKETS));
        }
    }

    @Test
    void theLinearForwardingTablesAreMinHop() {
        Fabric f = fabric("fat-tree.net", null);
        int lid = hca(f, 3).lidValue();
        SwitchTables leaf1 = f.topology().node("leaf1").tables();
        int up = leaf1.unicastPort(lid);
        assertTrue(up == 3 || up == 4, "leaf1 sends loop3's LID up a spine, not " + up);
        assertEquals(2, f.topology().node("leaf2").tables().unicastPort(lid));
        assertEquals(2, f.topology().node("spine1").tables().unicastPort(lid));
        // The two uplinks share the routes to leaf2's LIDs (OpenSM balances among equal hops).
        assertNotEquals(leaf1.unicastPort(hca(f, 2).lidValue()), up);
    }

    @Test
    void aPacketOutOfADownPortIsDroppedAndCountedThereWithItsReason() throws Exception {
        ManualControlLoop events = new ManualControlLoop();
        Fabric f = fabric("two-switches.net", events);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 1), FULL, QKEY, 4)) {
            Port out = switchPort(f, "sw1", f.topology().node("sw1").tables().unicastPort(b.port.lidValue()));
            f.linkDown(out);
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 1));
            assertEquals(0, b.poll());
            assertEquals(1, count(out, PortCounter.INACTIVE_DISCARDS));
            assertEquals(1, count(out, PortCounter.XMIT_DISCARDS));
            assertEquals(1, f.counters().drops(DropReason.ROUTE_PORT_INACTIVE));
        }
    }

    @Test
    void aPacketFromADownHcaPortIsAnInactiveDiscardOfThatPort() throws Exception {
        Fabric f = fabric("two-switches.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 2), FULL, QKEY, 4)) {
            AddressHandle ah = a.handleTo(b);
            f.portDown(a.port);
            a.send(ah, b.qp.qpn(), QKEY, 100, (byte) 1);
            assertEquals(0, b.poll());
            assertEquals(1, count(a.port.model, PortCounter.INACTIVE_DISCARDS));
            assertEquals(1, f.counters().drops(DropReason.PORT_NOT_ACTIVE));
            assertEquals(0, count(switchPort(f, "sw1", 1), PortCounter.RCV_PACKETS), "nothing reached the switch");
        }
    }

    @Test
    void aLidNoSwitchWasProgrammedForIsDroppedAtTheSwitch() throws Exception {
        Fabric f = fabric("two-switches.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 1), FULL, QKEY, 4)) {
            SwitchTables sw1 = f.topology().node("sw1").tables();
            sw1.setLinearEntry(b.port.lidValue(), SwitchTables.NO_PORT);
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 1));
            assertEquals(0, b.poll());
            Port in = switchPort(f, "sw1", 1);
            assertEquals(1, count(in, PortCounter.DLID_MAPPING_ERRORS));
            assertEquals(1, count(in, PortCounter.RCV_SWITCH_RELAY_ERRORS));
            assertEquals(1, f.counters().drops(DropReason.NO_ROUTE));
        }
    }

    @Test
    void aLidNoPortHasIsStillCountedAsNoSuchLid() throws Exception {
        Fabric f = fabric("two-switches.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0)) {
            AddressHandle nowhere = a.port.createAddressHandle(ipoib.api.verbs.AddressVector.local(Lid.of(0x99), 0));
            assertTrue(a.send(nowhere, Qpn.of(0x100), QKEY, 10, (byte) 1));
            assertEquals(1, f.counters().drops(DropReason.NO_SUCH_LID));
            assertEquals(1, count(switchPort(f, "sw1", 1), PortCounter.DLID_MAPPING_ERRORS));
        }
    }

    @Test
    void theSmReroutesAroundAnInterSwitchLinkThatWentDown() throws Exception {
        ManualControlLoop events = new ManualControlLoop();
        Fabric f = fabric("two-switches.net", events);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 1), FULL, QKEY, 8)) {
            SwitchTables sw1 = f.topology().node("sw1").tables();
            int before = sw1.unicastPort(b.port.lidValue());
            f.linkDown(switchPort(f, "sw1", before));
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 1);
            assertEquals(0, b.poll(), "dropped until the SM reroutes");
            events.advance(SubnetSweep.REROUTE_DELAY_NANOS - 1, TimeUnit.NANOSECONDS);
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 2);
            assertEquals(0, b.poll(), "still dropped just before");
            events.advance(1, TimeUnit.NANOSECONDS);
            int after = sw1.unicastPort(b.port.lidValue());
            assertEquals(before == 7 ? 8 : 7, after, "the other inter-switch link");
            a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 3);
            assertEquals(1, b.poll(), "traffic resumes");
            assertEquals(3, b.payloadByte(0, 0));
            assertEquals(2, f.counters().drops(DropReason.ROUTE_PORT_INACTIVE));
        }
    }

    private static MulticastGroup group(Fabric f, Gid creator) throws SaStatusException {
        Mgid mgid = Mgid.parse("ff12:401b:ffff::e000:7");
        McMemberRecord template = new McMemberRecord(mgid, creator, QKEY, Lid.UNASSIGNED, IbMtu.MTU_2048, 0, FULL,
                Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false);
        f.subnetManager().join(mgid, creator, JoinState.FULL_MEMBER.bit(), template);
        return f.subnetManager().group(mgid);
    }

    private static int receives(Endpoint e) {
        e.poll();
        int n = 0;
        for (int i = 0; i < e.completions.count(); i++) {
            n += e.completions.opcode(i) == WorkCompletions.OPCODE_RECEIVE ? 1 : 0;
        }
        return n;
    }

    @Test
    void theMulticastTreeFansOutToTheReceivingMembersOnly() throws Exception {
        Fabric f = fabric("fat-tree.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 4); Endpoint b = new Endpoint(hca(f, 1), FULL, QKEY, 4);
             Endpoint c = new Endpoint(hca(f, 2), FULL, QKEY, 4); Endpoint d = new Endpoint(hca(f, 3), FULL, QKEY, 4)) {
            MulticastGroup g = group(f, a.port.gid(0));
            f.subnetManager().join(g.mgid(), b.port.gid(0), JoinState.FULL_MEMBER.bit(), null);
            f.subnetManager().join(g.mgid(), c.port.gid(0), JoinState.NON_MEMBER.bit(), null);
            f.subnetManager().join(g.mgid(), d.port.gid(0), JoinState.SEND_ONLY_NON_MEMBER.bit(), null);
            for (Endpoint e : List.of(a, b, c, d)) {
                e.qp.attachMulticast(g.mgid().gid(), g.mlid());
            }
            int mlid = g.mlid().value();
            SwitchTables leaf2 = f.topology().node("leaf2").tables();
            assertTrue(leaf2.multicastForwards(mlid, 1), "leaf2 forwards to the NonMember");
            assertTrue(!leaf2.multicastForwards(mlid, 2), "leaf2 does not forward to the SendOnlyNonMember");
            d.send(d.handleToGroup(g), Qpn.MULTICAST, QKEY, 64, (byte) 9);
            assertEquals(1, receives(a));
            assertEquals(1, receives(b));
            assertEquals(1, receives(c));
            assertEquals(0, receives(d));
            long spines = count(switchPort(f, "spine1", 2), PortCounter.MULTICAST_RCV_PACKETS)
                    + count(switchPort(f, "spine2", 2), PortCounter.MULTICAST_RCV_PACKETS);
            assertEquals(1, spines, "one copy crosses to leaf1, through one spine");
            assertEquals(1, count(switchPort(f, "leaf1", 1), PortCounter.MULTICAST_XMIT_PACKETS));
            assertEquals(1, count(switchPort(f, "leaf1", 2), PortCounter.MULTICAST_XMIT_PACKETS));
        }
    }

    /**
     * 300 HCA ports do not fit on one switch (254 ports at most, IBA 14.2.5.3): the default
     * topology hangs them off leaves of 128 under the one switch. A datagram from the first HCA
     * to the last crosses leaf, switch and leaf; a multicast packet reaches each attached queue
     * pair once, two on one port included, and none after it detached.
     */
    @Test
    void moreHcaPortsThanASwitchHasHangOffLeavesUnderIt() throws Exception {
        FabricConfig d = FabricConfig.defaults();
        Fabric f = new Fabric(new FabricConfig(300, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 7));
        fabrics.add(f);
        f.start();
        assertEquals(4, f.topology().nodes().stream().filter(Node::isSwitch).count(), "the switch and three leaves");
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 4); Endpoint b = new Endpoint(hca(f, 299), FULL, QKEY, 4);
             Endpoint b2 = new Endpoint(hca(f, 299), FULL, QKEY, 4); Endpoint c = new Endpoint(hca(f, 150), FULL, QKEY, 4)) {
            assertTrue(a.send(a.handleTo(b), b.qp.qpn(), QKEY, 100, (byte) 5));
            assertEquals(1, b.poll());
            assertEquals(1, count(switchPort(f, "loopswitch", 1), PortCounter.RCV_PACKETS), "up from leaf 1");
            assertEquals(1, count(switchPort(f, "loopswitch", 3), PortCounter.XMIT_PACKETS), "down to leaf 3");
            assertEquals(1, count(switchPort(f, "loopswitch-leaf3", 300 - 256), PortCounter.XMIT_PACKETS));

            MulticastGroup g = group(f, a.port.gid(0));
            f.subnetManager().join(g.mgid(), b.port.gid(0), JoinState.FULL_MEMBER.bit(), null);
            f.subnetManager().join(g.mgid(), c.port.gid(0), JoinState.FULL_MEMBER.bit(), null);
            for (Endpoint e : List.of(a, b, b2, c)) {
                e.qp.attachMulticast(g.mgid().gid(), g.mlid());
            }
            a.send(a.handleToGroup(g), Qpn.MULTICAST, QKEY, 64, (byte) 1);
            assertEquals(List.of(1, 1, 1, 1), List.of(receives(a), receives(b), receives(b2), receives(c)));
            b2.qp.detachMulticast(g.mgid().gid(), g.mlid());
            a.send(a.handleToGroup(g), Qpn.MULTICAST, QKEY, 64, (byte) 2);
            assertEquals(List.of(1, 1, 0, 1), List.of(receives(a), receives(b), receives(b2), receives(c)));
        }
    }

    @Test
    void forwardingThroughThreeSwitchesAllocatesNothing() {
        Fabric f = fabric("fat-tree.net", null);
        try (Endpoint a = new Endpoint(hca(f, 0), FULL, QKEY, 0); Endpoint b = new Endpoint(hca(f, 3), FULL, QKEY, 32)) {
            AddressHandle ah = a.handleTo(b);
            var qpn = b.qp.qpn();
            Runnable round = () -> {
                a.qp.postSend(1, a.region, 0, 64, ah, qpn, QKEY);
                a.cq.poll(a.completions);
                int n = b.cq.poll(b.completions);
                for (int i = 0; i < n; i++) {
                    long slot = b.completions.workRequestId(i);
                    b.qp.postReceive(slot, b.region, slot * Endpoint.BUFFER, Endpoint.BUFFER);
                }
            };
            for (int i = 0; i < 20_000; i++) {
                round.run();
            }
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                round.run();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < 10_000, allocated + " bytes allocated by 10 000 rounds through three switches");
            assertEquals(30_000L, count(hca(f, 3).model, PortCounter.RCV_PACKETS));
        }
    }
}
