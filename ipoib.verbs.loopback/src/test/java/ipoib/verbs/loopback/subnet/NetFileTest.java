package ipoib.verbs.loopback.subnet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** ibsim's net format: records, cables, GUIDs as ibsim numbers them, and errors that name file and line. */
class NetFileTest {

    /** ibsim's net-examples/net.2sw2path4hca, whose records start with the switches. */
    static final String TWO_SWITCHES = """
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

    @Test
    void theTwoSwitchExampleGivesIbsimsNodesGuidsAndCables() {
        Topology t = NetFile.parse("net.2sw2path4hca", TWO_SWITCHES);
        assertEquals(6, t.nodes().size());
        assertEquals(6, t.links().size());
        // ibsim/sim_net.c: switches from 0x200000 one GUID each; HCAs from 0x100000, ports + 1 GUIDs each.
        assertEquals(0x200000L, t.node("Switch1").nodeGuid());
        assertEquals(0x200001L, t.node("Switch2").nodeGuid());
        assertEquals(0x100000L, t.node("Hca1").nodeGuid());
        assertEquals(0x100003L, t.node("Hca2").nodeGuid());
        assertEquals(0x100004L, t.node("Hca2").port(1).guid());
        assertSame(t.node("Hca2").port(1), t.portByGuid(0x100004L));
        assertSame(t.node("Switch2").port(0), t.portByGuid(0x200001L));
        Port s1p3 = t.node("Switch1").port(3);
        assertSame(t.node("Switch2").port(3), s1p3.peer());
        assertEquals(PortState.INIT, s1p3.state());
        assertEquals(PhysicalState.LINK_UP, s1p3.physicalState());
        assertEquals(PortState.DOWN, t.node("Switch1").port(4).state());
        assertEquals(PhysicalState.POLLING, t.node("Switch1").port(4).physicalState());
        assertEquals(PortState.ACTIVE, t.node("Switch1").port(0).state());
        assertNull(t.node("Hca1").port(2).peer());
        assertSame(t.node("Switch1").port(0), t.defaultPort());
        assertEquals(LinkRates.WIDTH_4X, s1p3.linkWidthActive());
        assertEquals(LinkRates.SPEED_SDR, s1p3.linkSpeedActive());
        assertEquals("Hca1", t.node("Hca1").description());
    }

    @Test
    void ibnetdiscoverOutputSetsGuidsDescriptionsAndRates() {
        String text = """
                # Topology file: generated on Fri Nov 27 2026
                vendid=0x2c9
                devid=0xbd36
                sysimgguid=0x2c90200000001
                switchguid=0x2c90200000001(2c90200000001)
                Switch	2 "S-0002c90200000001"		# "sw one" base port 0 lid 3 lmc 0
                [1]	"H-0002c90300000100"[1](2c90300000101) 		# "host a" lid 1 4xQDR

                vendid=0x2c9
                devid=0x673c
                caguid=0x2c90300000100
                Ca	2 "H-0002c90300000100"		# "host a"
                [1](2c90300000101) 	"S-0002c90200000001"[1]		# lid 1 lmc 0 "sw one" lid 3 4xQDR
                """;
        Topology t = NetFile.parse("ibnet.out", text);
        Node sw = t.node("S-0002c90200000001");
        assertEquals(0x2c90200000001L, sw.nodeGuid());
        assertEquals("sw one", sw.description());
        assertEquals(0x2c9, sw.vendorId());
        assertEquals(0xbd36, sw.deviceId());
        Node ca = t.node("H-0002c90300000100");
        assertEquals(0x2c90300000100L, ca.nodeGuid());
        assertEquals(0x2c90300000101L, ca.port(1).guid());
        assertEquals(0x2c90300000100L, ca.systemImageGuid());
        assertEquals("host a", ca.description());
        assertEquals(LinkRates.WIDTH_4X, ca.port(1).linkWidthActive());
        assertEquals(LinkRates.SPEED_QDR, ca.port(1).linkSpeedActive());
        assertSame(ca, t.nodeByDescription("host a"));
    }

    @Test
    void whatItWritesParsesBackToTheSameSubnet() {
        Topology t = NetFile.parse("a", TWO_SWITCHES);
        String written = NetFile.write(t);
        Topology back = NetFile.parse("b", written);
        assertEquals(written, NetFile.write(back));
        for (Node n : t.nodes()) {
            Node m = back.node(n.name());
            assertNotNull(m, n.name());
            assertEquals(n.nodeGuid(), m.nodeGuid());
            for (Port p : n.ports()) {
                Port q = m.port(p.number());
                assertEquals(p.guid(), q.guid());
                assertEquals(p.peer() == null ? null : p.peer().toString(), q.peer() == null ? null : q.peer().toString());
            }
        }
    }

    @Test
    void aCableDeclaredAtOneEndOnlyIsRefusedNamingBothEnds() {
        NetFileException e = assertThrows(NetFileException.class, () -> NetFile.parse("net", """
                Switch 4 "S"
                [1] "H"[1]

                Hca 1 "H"
                """));
        assertEquals("net file net line 2: port 1 of \"S\" is cabled to port 1 of \"H\", but that port declares "
                + "no cable: both ends must name each other", e.getMessage());
        assertEquals(2, e.line());
    }

    @Test
    void badInputIsRefusedWithFileLineAndWhatIsAllowed() {
        assertRefused("""
                Switch 4 "S"
                [5] "H"[1]
                """, "net file n line 2: port 5 of \"S\": allowed 1..4 (port 0 is the switch's management port, "
                + "never cabled)");
        assertRefused("""
                Hca 1 "H"
                Hca 1 "H"
                """, "net file n line 2: node \"H\" is defined twice: node names are unique");
        assertRefused("include \"other\"\n", "net file n line 1: 'include' is an ibsim extension the loopback "
                + "fabric does not support: allowed Switch, Hca, Ca, switchguid, caguid, hcaguids, sysimgguid, "
                + "vendid, devid, width, speed");
        assertRefused("""
                Switch 2 "S"
                [1] "X"[1]
                """, "net file n line 2: port 1 of \"S\" is cabled to \"X\", which no Switch or Hca record defines");
        assertRefused("""
                switchguid=0x10
                Switch 1 "S"
                switchguid=0x10
                Switch 1 "T"
                """, "net file n line 4: node \"T\": GUID 0x0000000000000010 is already used by another node or "
                + "port: GUIDs are unique");
        assertRefused("""
                Switch 1 "S"
                [1] "H"[1] # lid 1 4xEDR
                Hca 1 "H"
                [1] "S"[1]
                """, "net file n line 2: speed EDR: allowed SDR, DDR, QDR (extended speeds are not modelled)");
        assertRefused("", "net file n: a topology needs at least one node");
    }

    private static void assertRefused(String text, String message) {
        NetFileException e = assertThrows(NetFileException.class, () -> NetFile.parse("n", text));
        assertEquals(message, e.getMessage());
    }

    @Test
    void theDefaultTopologyKeepsTheLoopbackGuidsOnOneSwitch() {
        Topology t = SingleSwitchTopology.loopback(0x0002_c903_0000_0000L, 3, 2);
        Node sw = t.node(SingleSwitchTopology.SWITCH_NAME);
        assertTrue(sw.isSwitch());
        assertEquals(6, sw.portCount());
        assertEquals(0x0002_c903_0000_0010L, sw.nodeGuid());
        Node loop1 = t.node("loop1");
        assertEquals(0x0002_c903_0000_0200L, loop1.nodeGuid());
        assertEquals(0x0002_c903_0000_0202L, loop1.port(2).guid());
        assertSame(sw.port(4), loop1.port(2).peer());
        assertEquals(LinkRates.WIDTH_4X, loop1.port(2).linkWidthActive());
        assertEquals(LinkRates.SPEED_QDR, loop1.port(2).linkSpeedActive());
    }
}
