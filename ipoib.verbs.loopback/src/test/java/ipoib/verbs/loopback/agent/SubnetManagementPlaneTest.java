package ipoib.verbs.loopback.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import ipoib.codec.smp.NodeInfo;
import ipoib.codec.smp.PortCounters;
import ipoib.codec.smp.PortCountersExtended;
import ipoib.codec.smp.PortInfo;
import ipoib.codec.smp.Smp;
import ipoib.codec.smp.SmpTables;
import ipoib.codec.smp.SwitchInfo;
import ipoib.verbs.loopback.subnet.LinkRates;
import ipoib.verbs.loopback.subnet.NetFile;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.subnet.Topology;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agents driven as OpenSM drives them, on ibsim's net-examples/net.2sw2path4hca (two switches
 * cabled by their ports 3 and 5, Hca1 and Hca3 on Switch1, Hca2 and Hca4 on Switch2). Known
 * answers are what Debian's ibsim 0.12 answered {@code smpdump -D} for the same net file.
 */
class SubnetManagementPlaneTest {
    static final String NET = """
            Switch	8 "Switch1"
            [1]	"Hca1"[1]
            [2]	"Hca3"[1]
            [3]	"Switch2"[3]
            [5]	"Switch2"[5]

            Switch 8 "Switch2"
            [1]	"Hca2"[1]
            [2]	"Hca4"[1]
            [3]	"Switch1"[3]
            [5]	"Switch1"[5]

            Hca	2 "Hca1"
            [1]	"Switch1"[1]

            Hca	2 "Hca2"
            [1]	"Switch2"[1]

            Hca	2 "Hca3"
            [1]	"Switch1"[2]

            Hca 	2 "Hca4"
            [1]	"Switch2"[2]
            """;

    private Topology topology;
    private SubnetManagementPlane plane;
    private final Received smInbox = new Received();
    private Attachment sm;

    @BeforeEach
    void attachAnSmAtHca1() {
        topology = NetFile.parse("net.2sw2path4hca", NET);
        plane = new SubnetManagementPlane(topology);
        sm = plane.attach("Hca1", true, smInbox);
    }

    private byte[] drGet(int attribute, int modifier, int... path) {
        sm.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0, Smps.directed(Smp.METHOD_GET, attribute, modifier, 0x42,
                path), Smp.LENGTH);
        Received.Mad m = smInbox.take();
        assertEquals(0, m.status(), "delivered");
        return m.bytes();
    }

    private int drSet(int attribute, int modifier, byte[] data, int... path) {
        byte[] mad = Smps.directed(Smp.METHOD_SET, attribute, modifier, 0x43, path);
        System.arraycopy(data, 0, mad, Smp.DATA, Smp.DATA_LENGTH);
        sm.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0, mad, Smp.LENGTH);
        Received.Mad m = smInbox.take();
        assertEquals(0, m.status(), "delivered");
        return Smp.status(MemorySegment.ofArray(m.bytes()));
    }

    static String hex(byte[] mad, int from, int length) {
        return HexFormat.of().formatHex(mad, from, from + length);
    }

    @Test
    void aDirectedRouteNodeInfoWalkFindsEveryNodeAsIbsimAnswers() throws DecodeException {
        byte[] local = drGet(Smp.ATTR_NODE_INFO, 0);
        MemorySegment s = MemorySegment.ofArray(local);
        assertEquals(Smp.METHOD_GET_RESPONSE, Smp.method(s));
        assertTrue(Smp.direction(s), "D bit on the way back");
        assertEquals(0x42, Smp.transactionId(s), "the TID comes back with the client id (0) in its top bits");
        assertEquals(new NodeInfo(1, 1, 1, 2, 0x100000, 0x100000, 0x100001, 64, 0, 0xa1, 1, 0),
                NodeInfo.decode(s, Smp.DATA));

        byte[] switch1 = drGet(Smp.ATTR_NODE_INFO, 0, 1);
        // smpdump -D 0,1 0x11 from Hca1 is smpdump -D 0 0x11 at Switch1 but for LocalPortNum 1.
        assertEquals("0101020800000000002000000000000000200000000000000020000000080000000000a101000000",
                hex(switch1, Smp.DATA, 40));
        assertEquals(1, Smp.returnPath(MemorySegment.ofArray(switch1), 1));

        byte[] switch2 = drGet(Smp.ATTR_NODE_INFO, 0, 1, 3);
        // smpdump -D 0,3 0x11 from Switch1.
        assertEquals("0101020800000000002000010000000000200001000000000020000100080000000000a103000000",
                hex(switch2, Smp.DATA, 40));
        byte[] hca2 = drGet(Smp.ATTR_NODE_INFO, 0, 1, 3, 1);
        // smpdump -D 0,3,1 0x11 from Switch1.
        assertEquals("0101010200000000001000030000000000100003000000000010000400400000000000a101000000",
                hex(hca2, Smp.DATA, 40));
        byte[] description = drGet(Smp.ATTR_NODE_DESCRIPTION, 0, 1, 3);
        assertEquals("5377697463683200", hex(description, Smp.DATA, 8), "\"Switch2\", smpdump -D 0,3 0x10");
    }

    @Test
    void aRouteThroughAnUncabledPortOrPastAnHcaIsGivenBackUndelivered() {
        sm.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0,
                Smps.directed(Smp.METHOD_GET, Smp.ATTR_NODE_INFO, 0, 1, 1, 4), Smp.LENGTH);
        assertEquals(SubnetManagementPlane.UNDELIVERED, smInbox.take().status());
        sm.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0,
                Smps.directed(Smp.METHOD_GET, Smp.ATTR_NODE_INFO, 0, 1, 1, 1, 1), Smp.LENGTH);
        assertEquals(SubnetManagementPlane.UNDELIVERED, smInbox.take().status(), "an HCA does not forward");
    }

    @Test
    void portInfoOfASwitchPortIsIbsimsThroughTheArrivalPort() {
        byte[] pi = drGet(Smp.ATTR_PORT_INFO, 5, 1, 3);
        // smpdump -D 0,3 0x15 5 from Switch1: Switch2's port 5 as seen through its port 3, except
        // LinkWidthSupported (octet 30) and LinkSpeedSupported (octet 32, high nibble): ibsim
        // reports every rate, the loopback what the net file gives the port (here ibsim's default 4x SDR).
        assertEquals("0000000000000000000000000000000000000000000000000000000003020202"
                + "12520011404000080804e040" + "0".repeat(40), hex(pi, Smp.DATA, 64));
    }

    @Test
    void enablingAllSupportedRatesKeepsTheRateOfTheNetFileAsOnIbsim() {
        // OpenSM sets LinkSpeedEnabled 15 and LinkWidthEnabled 255 ("all supported"); on ibsim's
        // net.2sw2path4hca ibnetdiscover then shows 4xSDR links.
        Port hca = topology.node("Hca1").port(1);
        PortInfo all = new PortInfo(0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xF, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        byte[] data = new byte[Smp.DATA_LENGTH];
        all.encode(MemorySegment.ofArray(data), 0);
        assertEquals(0, drSet(Smp.ATTR_PORT_INFO, 0, data));
        assertEquals(LinkRates.SPEED_SDR, hca.linkSpeedActive());
        assertEquals(LinkRates.WIDTH_4X, hca.linkWidthActive());
        assertEquals(LinkRates.SPEED_SDR, hca.linkSpeedEnabled());
    }

    private static byte[] portInfoSet(Port p, int lid, int smLid, int state) {
        PortInfo current = PortInfoAttribute.portInfo(p, p);
        PortInfo set = new PortInfo(0, 0xfe80000000000000L, lid, smLid, current.capabilityMask(), 0, 0, 0, 0, 0, 0, 0,
                state, 0, 0, 0, 0, 0, 0, 4, 0, current.vlCap(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, 0,
                18, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        byte[] data = new byte[Smp.DATA_LENGTH];
        set.encode(MemorySegment.ofArray(data), 0);
        return data;
    }

    @Test
    void aPortInfoSetMovesALinkFromInitThroughArmedToActive() throws DecodeException {
        Port hca = topology.node("Hca1").port(1);
        Port sw = topology.node("Switch1").port(1);
        assertEquals(Smp.STATUS_INVALID_VALUE, drSet(Smp.ATTR_PORT_INFO, 1, portInfoSet(sw, 0, 1, 4), 1),
                "Init to Active skips Armed");
        assertEquals(PortState.INIT, sw.state());
        assertEquals(0, drSet(Smp.ATTR_PORT_INFO, 1, portInfoSet(hca, 1, 1, 3)));
        assertEquals(1, hca.lid());
        assertSame(hca, topology.portByLid(1));
        assertEquals(PortState.ARMED, hca.state());
        assertEquals(0, drSet(Smp.ATTR_PORT_INFO, 1, portInfoSet(sw, 0, 1, 3), 1));
        assertEquals(PortState.ARMED, sw.state());
        assertEquals(0, drSet(Smp.ATTR_PORT_INFO, 1, portInfoSet(hca, 1, 1, 4)));
        assertEquals(0, drSet(Smp.ATTR_PORT_INFO, 1, portInfoSet(sw, 0, 1, 4), 1));
        assertEquals(PortState.ACTIVE, hca.state());
        assertEquals(PortState.ACTIVE, sw.state());
        PortInfo answered = PortInfo.decode(MemorySegment.ofArray(drGet(Smp.ATTR_PORT_INFO, 0)), Smp.DATA);
        assertEquals(1, answered.lid());
        assertEquals(4, answered.portState());
        assertEquals(18, answered.subnetTimeout());
        assertEquals(Port.CAP_IS_SM, answered.capabilityMask() & Port.CAP_IS_SM, "the SM's port says IsSM");
    }

    /** One PortInfo Set: the port numbered {@code modifier} of the node at {@code path}. */
    private void setPort(int modifier, int lid, int state, int... path) {
        Port p = topology.portByGuid(nodeInfoOf(drGet(Smp.ATTR_NODE_INFO, 0, path)).portGuid());
        Port target = p.node().isSwitch() ? p.node().port(modifier) : p;
        assertEquals(0, drSet(Smp.ATTR_PORT_INFO, modifier, portInfoSet(target, lid, 1, state), path),
                "state " + state + " of " + target);
    }

    /**
     * Brings the route Hca1 - Switch1 (ports 1, 3) - Switch2 (ports 3, 1) - Hca2 to Active with
     * LIDs Hca1 1, Switch1 2, Switch2 3, Hca2 4 and the SM at LID 1, as OpenSM would: LIDs first,
     * then every port Armed, then every port Active.
     */
    private void activateRouteToHca2() {
        for (int state = 0; state <= 4; state++) {
            if (state == 1 || state == 2) {
                continue;
            }
            setPort(0, 1, state);
            setPort(0, 2, state, 1);
            setPort(1, 2, state, 1);
            setPort(3, 2, state, 1);
            setPort(0, 3, state, 1, 3);
            setPort(3, 3, state, 1, 3);
            setPort(1, 3, state, 1, 3);
            setPort(0, 4, state, 1, 3, 1);
        }
        assertEquals(PortState.ACTIVE, topology.node("Hca2").port(1).state());
        assertEquals(PortState.ACTIVE, topology.node("Switch2").port(3).state());
    }

    private static NodeInfo nodeInfoOf(byte[] mad) {
        try {
            return NodeInfo.decode(MemorySegment.ofArray(mad), Smp.DATA);
        } catch (DecodeException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLidRoutedMadFollowsTheLinearForwardingTablesOnceTheyAreSet() throws DecodeException {
        activateRouteToHca2();
        assertEquals(4, topology.node("Hca2").port(1).lid());
        // Nothing forwards LID 4 yet: the LID-routed Get is given back.
        sm.send(4, 0, 0, 0, Smps.lidRouted(Smp.CLASS_LID_ROUTED, Smp.METHOD_GET, Smp.ATTR_NODE_INFO, 0, 7), Smp.LENGTH);
        assertEquals(SubnetManagementPlane.UNDELIVERED, smInbox.take().status());

        byte[] lft1 = new byte[Smp.DATA_LENGTH];
        lft1[1] = 1; // LID 1 (Hca1) out of port 1
        lft1[2] = 0; // LID 2 is Switch1 itself
        lft1[3] = 3; // LID 3 (Switch2) and LID 4 (Hca2) out of port 3
        lft1[4] = 3;
        byte[] lft2 = new byte[Smp.DATA_LENGTH];
        lft2[1] = 3;
        lft2[2] = 3;
        lft2[3] = 0;
        lft2[4] = 1;
        assertEquals(0, drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft1, 1));
        assertEquals(0, drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft2, 1, 3));
        byte[] top = new byte[Smp.DATA_LENGTH];
        new SwitchInfo(0, 0, 0, 4, 0, 0, 0, 0, true, 0, 0, 0, 0, 0).encode(MemorySegment.ofArray(top), 0);
        assertEquals(0, drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1));
        assertEquals(0, drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1, 3));
        assertEquals(3, topology.node("Switch1").tables().unicastPort(4));
        byte[] readBack = drGet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, 1);
        assertEquals(3, SmpTables.lftPort(MemorySegment.ofArray(readBack), Smp.DATA, 4));
        assertEquals(false, SwitchInfo.decode(MemorySegment.ofArray(drGet(Smp.ATTR_SWITCH_INFO, 0, 1)), Smp.DATA)
                .portStateChange(), "the SM cleared PortStateChange by writing 1");

        sm.send(4, 0, 0, 0, Smps.lidRouted(Smp.CLASS_LID_ROUTED, Smp.METHOD_GET, Smp.ATTR_NODE_INFO, 0, 7), Smp.LENGTH);
        Received.Mad answer = smInbox.take();
        assertEquals(0, answer.status());
        assertEquals(1, answer.dlid());
        assertEquals(4, answer.slid());
        assertEquals(0x100004L, nodeInfoOf(answer.bytes()).portGuid(), "Hca2's port 1 answered");
        sm.send(3, 0, 0, 0, Smps.lidRouted(Smp.CLASS_LID_ROUTED, Smp.METHOD_GET, Smp.ATTR_NODE_INFO, 0, 8), Smp.LENGTH);
        assertEquals(0x200001L, nodeInfoOf(smInbox.take().bytes()).nodeGuid(), "Switch2's port 0 answers LID 3");
    }

    @Test
    void aLinkGoingDownRaisesTrap128ToTheSm() throws DecodeException {
        activateRouteToHca2();
        byte[] lft1 = new byte[Smp.DATA_LENGTH];
        lft1[1] = 1;
        byte[] lft2 = new byte[Smp.DATA_LENGTH];
        lft2[1] = 3;
        drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft1, 1);
        drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft2, 1, 3);
        byte[] top = new byte[Smp.DATA_LENGTH];
        new SwitchInfo(0, 0, 0, 4, 0, 0, 0, 0, true, 0, 0, 0, 0, 0).encode(MemorySegment.ofArray(top), 0);
        drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1);
        drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1, 3);
        assertTrue(smInbox.mads.isEmpty());

        Port hca2 = topology.node("Hca2").port(1);
        topology.lock().lock();
        try {
            topology.setLinkUp(hca2, false);
        } finally {
            topology.lock().unlock();
        }
        Received.Mad trap = smInbox.take();
        MemorySegment s = MemorySegment.ofArray(trap.bytes());
        assertEquals(Smp.METHOD_TRAP, Smp.method(s));
        assertEquals(Smp.ATTR_NOTICE, Smp.attributeId(s));
        assertEquals(1, trap.dlid(), "to the SM LID");
        assertEquals(3, trap.slid(), "from Switch2's LID");
        assertEquals(0x81, Wire.u8(s, Smp.DATA), "generic, urgent");
        assertEquals(2, Wire.u24(s, Smp.DATA + 1), "produced by a switch");
        assertEquals(128, Wire.u16(s, Smp.DATA + 4));
        assertEquals(3, Wire.u16(s, Smp.DATA + 6), "issuer LID");
        assertEquals(3, Wire.u16(s, Smp.DATA + 10), "LIDADDR");
        assertTrue(smInbox.mads.isEmpty(), "only Switch2 has a port on that link");
        assertEquals(true, SwitchInfo.decode(MemorySegment.ofArray(drGet(Smp.ATTR_SWITCH_INFO, 0, 1, 3)), Smp.DATA)
                .portStateChange());
    }

    @Test
    void thePerformanceAgentReportsTheCountersTheDataPathKeeps() throws DecodeException {
        activateRouteToHca2();
        byte[] lft1 = new byte[Smp.DATA_LENGTH];
        lft1[1] = 1;
        lft1[4] = 3;
        byte[] lft2 = new byte[Smp.DATA_LENGTH];
        lft2[1] = 3;
        lft2[4] = 1;
        drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft2, 1, 3);
        byte[] top = new byte[Smp.DATA_LENGTH];
        new SwitchInfo(0, 0, 0, 4, 0, 0, 0, 0, false, 0, 0, 0, 0, 0).encode(MemorySegment.ofArray(top), 0);
        drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft1, 1);
        drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1);
        drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1, 3);
        for (ipoib.verbs.loopback.subnet.Node n : topology.nodes()) {
            for (Port p : n.ports()) {
                for (ipoib.verbs.loopback.subnet.PortCounter c : ipoib.verbs.loopback.subnet.PortCounter.values()) {
                    p.counters().clear(c);
                }
            }
        }
        Port s1p1 = topology.node("Switch1").port(1);
        s1p1.counters().transmitted(1000, false);
        s1p1.counters().received(2000, true);
        topology.node("Switch1").port(3).counters().transmitted(400, false);

        byte[] get = Smps.lidRouted(Smp.CLASS_PERFORMANCE, Smp.METHOD_GET, Smp.ATTR_PORT_COUNTERS, 0, 9);
        get[Smp.DATA + 1] = 1; // PortSelect
        sm.send(2, 0, 1, 1, get, Smp.LENGTH);
        Received.Mad m = smInbox.take();
        assertEquals(0, m.status());
        PortCounters pc = PortCounters.decode(MemorySegment.ofArray(m.bytes()), Smp.DATA);
        assertEquals(250, pc.xmitData(), "1000 octets are 250 words");
        // The Get itself came in through this port first: a MAD is 72 words on the link, as ibsim counts it.
        assertEquals(500 + 72, pc.rcvData());
        assertEquals(1, pc.xmitPackets());
        assertEquals(2, pc.rcvPackets());

        byte[] all = Smps.lidRouted(Smp.CLASS_PERFORMANCE, Smp.METHOD_GET, Smp.ATTR_PORT_COUNTERS_EXTENDED, 0, 10);
        all[Smp.DATA + 1] = (byte) 0xFF;
        sm.send(2, 0, 1, 1, all, Smp.LENGTH);
        PortCountersExtended x = PortCountersExtended.decode(MemorySegment.ofArray(smInbox.take().bytes()), Smp.DATA);
        // All ports summed: the data above, the first Get's answer out of port 1, this Get in through port 1.
        assertEquals(250 + 100 + 72, x.xmitData());
        assertEquals(500 + 72 + 72, x.rcvData());
        assertEquals(1, x.multicastRcvPackets());

        byte[] clear = Smps.lidRouted(Smp.CLASS_PERFORMANCE, Smp.METHOD_SET, Smp.ATTR_PORT_COUNTERS, 0, 11);
        clear[Smp.DATA + 1] = 1;
        clear[Smp.DATA + 2] = (byte) 0xFF;
        clear[Smp.DATA + 3] = (byte) 0xFF;
        sm.send(2, 0, 1, 1, clear, Smp.LENGTH);
        assertEquals(0, PortCounters.decode(MemorySegment.ofArray(smInbox.take().bytes()), Smp.DATA).xmitData());

        // An HCA answers only for the port the MAD arrived through.
        byte[] other = Smps.lidRouted(Smp.CLASS_PERFORMANCE, Smp.METHOD_GET, Smp.ATTR_PORT_COUNTERS, 0, 12);
        other[Smp.DATA + 1] = 2;
        sm.send(4, 0, 1, 1, other, Smp.LENGTH);
        assertEquals(0, smInbox.take().status());
    }

    @Test
    void smInfoAndSaMadsGoToTheSmAttachedAtTheDestinationAndItsAnswerComesBack() {
        Received otherInbox = new Received();
        Attachment standby = plane.attach("Switch2", true, otherInbox);
        assertEquals(1, standby.clientId());
        sm.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0,
                Smps.directed(Smp.METHOD_GET, Smp.ATTR_SM_INFO, 0, 0x77, 1, 3), Smp.LENGTH);
        Received.Mad request = otherInbox.take();
        MemorySegment r = MemorySegment.ofArray(request.bytes());
        assertEquals(Smp.ATTR_SM_INFO, Smp.attributeId(r));
        assertEquals(3, Smp.returnPath(r, 2), "arrived at Switch2 through its port 3");
        byte[] answer = request.bytes().clone();
        Smp.toResponse(MemorySegment.ofArray(answer), 0);
        standby.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0, answer, Smp.LENGTH);
        Received.Mad back = smInbox.take();
        assertEquals(0, back.status());
        assertEquals(0x77, Smp.transactionId(MemorySegment.ofArray(back.bytes())));
        assertTrue(otherInbox.mads.isEmpty());
    }

    @Test
    void aRequestForAnSmWhoseProcessEndedComesBackToItsSenderUndelivered() {
        // A standby polling a master that was killed: with no kernel to time the poll out, the
        // plane gives it back (status 110) when the master's client no longer takes MADs.
        Received killedInbox = new Received();
        plane.attach("Switch2", true, killedInbox);
        killedInbox.gone = true;
        sm.send(Smp.PERMISSIVE_LID, Smp.PERMISSIVE_LID, 0, 0,
                Smps.directed(Smp.METHOD_GET, Smp.ATTR_SM_INFO, 0, 0x78, 1, 3), Smp.LENGTH);
        Received.Mad back = smInbox.take();
        assertEquals(SubnetManagementPlane.UNDELIVERED, back.status());
        MemorySegment b = MemorySegment.ofArray(back.bytes());
        assertEquals(Smp.ATTR_SM_INFO, Smp.attributeId(b));
        assertEquals(Smp.METHOD_GET, Smp.method(b), "its own request");
        assertTrue(smInbox.mads.isEmpty());
    }

    private void programRouteToHca2() {
        byte[] lft1 = new byte[Smp.DATA_LENGTH];
        lft1[1] = 1;
        lft1[4] = 3;
        byte[] lft2 = new byte[Smp.DATA_LENGTH];
        lft2[1] = 3;
        lft2[4] = 1;
        assertEquals(0, drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft1, 1));
        assertEquals(0, drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft2, 1, 3));
        byte[] top = new byte[Smp.DATA_LENGTH];
        new SwitchInfo(0, 0, 0, 4, 0, 0, 0, 0, true, 0, 0, 0, 0, 0).encode(MemorySegment.ofArray(top), 0);
        assertEquals(0, drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1));
        assertEquals(0, drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1, 3));
    }

    @Test
    void anSmAttachingAtAPortWithALidRaisesTrap144ToTheMasterSm() {
        activateRouteToHca2();
        programRouteToHca2();
        Attachment second = plane.attach("Hca2", false, new Received());
        second.setSm(true);
        Received.Mad trap = smInbox.take();
        MemorySegment s = MemorySegment.ofArray(trap.bytes());
        assertEquals(Smp.METHOD_TRAP, Smp.method(s));
        assertEquals(144, Wire.u16(s, Smp.DATA + 4));
        assertEquals(4, trap.slid(), "from Hca2's port");
        assertEquals(0x84, Wire.u8(s, Smp.DATA), "generic, informational");
        assertEquals(4, Wire.u16(s, Smp.DATA + 12), "LIDADDR");
        assertEquals(Port.HCA_CAPABILITIES | Port.CAP_IS_SM, Wire.u32(s, Smp.DATA + 16), "the new CapabilityMask");
    }

    @Test
    void multicastForwardingAndPKeyBlocksAreWrittenAndReadBack() throws DecodeException {
        // MFT block 1 (MLIDs 0xC020..0xC03F), position 0 (ports 0..15): MLID 0xC021 to ports 1 and 3.
        byte[] mft = new byte[Smp.DATA_LENGTH];
        SmpTables.setMftMask(MemorySegment.ofArray(mft), 0, 1, 1 << 1 | 1 << 3);
        assertEquals(0, drSet(Smp.ATTR_MULTICAST_FORWARDING_TABLE, 1, mft, 1));
        assertTrue(topology.node("Switch1").tables().multicastForwards(0xC021, 3));
        assertEquals(false, topology.node("Switch1").tables().multicastForwards(0xC021, 2));
        byte[] back = drGet(Smp.ATTR_MULTICAST_FORWARDING_TABLE, 1, 1);
        assertEquals(0b1010, SmpTables.mftMask(MemorySegment.ofArray(back), Smp.DATA, 1));

        // P_KeyTable block 0 of Hca1's port: the default and a limited member of 0x8001's partition.
        byte[] pkeys = new byte[Smp.DATA_LENGTH];
        SmpTables.setPkey(MemorySegment.ofArray(pkeys), 0, 0, 0xFFFF);
        SmpTables.setPkey(MemorySegment.ofArray(pkeys), 0, 1, 0x0001);
        assertEquals(0, drSet(Smp.ATTR_PKEY_TABLE, 0, pkeys));
        Port hca = topology.node("Hca1").port(1);
        assertEquals(1, hca.pkeyIndexOf(0x8001), "found by its base, whichever membership");
        assertEquals("ffff0001", hex(drGet(Smp.ATTR_PKEY_TABLE, 0), Smp.DATA, 4));
        // A switch's port 0 has 8 entries (NodeInfo.PartitionCap), so block 1 does not exist.
        assertEquals(Smp.STATUS_INVALID_VALUE, drSet(Smp.ATTR_PKEY_TABLE, 1, pkeys, 1));
    }

    @Test
    void attachRefusalsNameTheReason() {
        AttachRefusedException noNode = assertThrows(AttachRefusedException.class,
                () -> plane.attach("Hca9", false, new Received()));
        assertEquals("no node \"Hca9\": attach by a node's name, its NodeDescription or a node or port GUID as "
                + "0x-prefixed hexadecimal, or give none for the first node of the topology", noNode.getMessage());
        AttachRefusedException twoSms = assertThrows(AttachRefusedException.class,
                () -> plane.attach("0x100001", true, new Received()));
        assertEquals("cannot attach an SM at \"Hca1\": an SM is already attached there (client 0)",
                twoSms.getMessage());
        Attachment atDefault = plane.attach("", false, new Received());
        assertEquals("Switch1", atDefault.nodeName());
        assertEquals(0, atDefault.portNumber());
        for (int i = 2; i < ManagementPlane.MAX_CLIENTS; i++) {
            plane.attach("Hca2", false, new Received());
        }
        assertThrows(AttachRefusedException.class, () -> plane.attach("Hca3", false, new Received()));
        Attachment internal = plane.attachAt(topology.node("Hca3").port(2), false, new Received());
        assertEquals(ManagementPlane.MAX_CLIENTS, internal.clientId(), "in-JVM clients do not use ibsim's ids");
        atDefault.close();
        assertEquals(1, plane.attach("Hca3", false, new Received()).clientId(), "the freed id is reused");
    }

    @Test
    void anAppliancePortsSaRequestReachesTheSmAndTheAnswerComesBackByItsTid() {
        activateRouteToHca2();
        byte[] lft1 = new byte[Smp.DATA_LENGTH];
        lft1[1] = 1;
        lft1[4] = 3;
        byte[] lft2 = new byte[Smp.DATA_LENGTH];
        lft2[1] = 3;
        lft2[4] = 1;
        drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft1, 1);
        drSet(Smp.ATTR_LINEAR_FORWARDING_TABLE, 0, lft2, 1, 3);
        byte[] top = new byte[Smp.DATA_LENGTH];
        new SwitchInfo(0, 0, 0, 4, 0, 0, 0, 0, false, 0, 0, 0, 0, 0).encode(MemorySegment.ofArray(top), 0);
        drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1);
        drSet(Smp.ATTR_SWITCH_INFO, 0, top, 1, 3);

        Received portInbox = new Received();
        Attachment port = plane.attachAt(topology.node("Hca2").port(1), false, portInbox);
        // A PathRecord GetTable (SA class 0x03, method 0x12, attribute 0x35) to the SM's LID on QP1.
        port.send(1, 0, 1, 1, Smps.lidRouted(0x03, 0x12, 0x35, 0, 0x5A), Smp.LENGTH);
        Received.Mad request = smInbox.take();
        assertEquals(4, request.slid(), "the source LID is the port's");
        MemorySegment r = MemorySegment.ofArray(request.bytes());
        assertEquals((long) port.clientId() << 48 | 0x5A, Smp.transactionId(r));
        byte[] answer = request.bytes().clone();
        Wire.put8(MemorySegment.ofArray(answer), 3, 0x92); // GetTableResp
        sm.send(request.slid(), 1, request.sqp(), request.dqp(), answer, Smp.LENGTH);
        Received.Mad back = portInbox.take();
        assertEquals(0, back.status());
        assertEquals(0x92, back.bytes()[3] & 0xFF);

        // The SA's Report (method 0x06) of a subscribed trap goes to the port's client, not to an SM.
        sm.send(4, 1, 1, 1, Smps.lidRouted(0x03, 0x06, 0x02, 0, 0x99), Smp.LENGTH);
        Received.Mad report = portInbox.take();
        assertEquals(0, report.status());
        assertEquals(0x06, report.bytes()[3] & 0xFF);
        assertTrue(smInbox.mads.isEmpty());
    }

    @Test
    void theControlAnswersAreIbsims() {
        Attachment a = plane.attach("Hca2", false, new Received());
        assertEquals(0x100003L, a.nodeGuid());
        assertEquals(1, a.portNumber());
        assertEquals(PortState.INIT.code(), a.portState());
        // SIM_CTL_GET_NODEINFO at Hca2: as smpdump -D 0,3,1 0x11 answered.
        assertEquals("0101010200000000001000030000000000100003000000000010000400400000000000a101000000",
                HexFormat.of().formatHex(a.nodeInfo(), 0, 40));
        assertEquals("ffff" + "0000".repeat(31), HexFormat.of().formatHex(a.pkeys()));
        sm.close();
        assertEquals(0, topology.node("Hca1").port(1).capabilityMask() & Port.CAP_IS_SM, "IsSM cleared at detach");
    }
}
