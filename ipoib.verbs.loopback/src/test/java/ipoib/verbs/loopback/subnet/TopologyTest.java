package ipoib.verbs.loopback.subnet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Changes to ports go through the topology, under its lock, and are told to listeners in order. */
class TopologyTest {

    @Test
    void lidsAreLookedUpWithTheirLmcRangeAndMoveWithTheirPort() {
        Topology t = SingleSwitchTopology.loopback(0x1000, 2, 1);
        Port a = t.node("loop0").port(1);
        Port b = t.node("loop1").port(1);
        t.lock().lock();
        try {
            t.assignLid(a, 4, 1);
            assertSame(a, t.portByLid(4));
            assertSame(a, t.portByLid(5));
            assertNull(t.portByLid(6));
            t.assignLid(a, 8, 0);
            assertNull(t.portByLid(4));
            t.assignLid(b, 8, 0);
            assertSame(b, t.portByLid(8));
        } finally {
            t.lock().unlock();
        }
    }

    @Test
    void aChangeWithoutTheLockIsRefused() {
        Topology t = SingleSwitchTopology.loopback(0x1000, 1, 1);
        assertThrows(IllegalStateException.class, () -> t.assignLid(t.node("loop0").port(1), 1, 0));
    }

    @Test
    void aLinkGoesDownAndUpAtBothEnds() {
        Topology t = SingleSwitchTopology.loopback(0x1000, 1, 1);
        Port hca = t.node("loop0").port(1);
        Port sw = hca.peer();
        List<String> seen = new ArrayList<>();
        t.addListener((p, c) -> seen.add(p + " " + c));
        t.lock().lock();
        try {
            t.setState(hca, PortState.ACTIVE);
            t.setLinkUp(sw, false);
            assertEquals(PortState.DOWN, hca.state());
            assertEquals(PhysicalState.POLLING, sw.physicalState());
            assertEquals(1, hca.counters().get(PortCounter.LINK_DOWNED));
            t.setLinkUp(hca, true);
            assertEquals(PortState.INIT, sw.state());
            assertEquals(PhysicalState.LINK_UP, hca.physicalState());
            assertThrows(IllegalArgumentException.class, () -> t.setLinkUp(t.node("loopswitch").port(0), false));
        } finally {
            t.lock().unlock();
        }
        assertEquals(List.of("loop0[1] STATE", "loopswitch[1] LINK", "loop0[1] LINK", "loop0[1] LINK",
                "loopswitch[1] LINK"), seen);
    }

    @Test
    void portStateSetsFollowTheLinkStateMachine() {
        assertEquals(PortState.ARMED, PortStateTransition.apply(PortState.INIT, PortState.INIT, 3));
        assertEquals(PortState.ACTIVE, PortStateTransition.apply(PortState.ARMED, PortState.ARMED, 4));
        assertEquals(PortState.ACTIVE, PortStateTransition.apply(PortState.ACTIVE, PortState.ACTIVE, 0));
        assertNull(PortStateTransition.apply(PortState.INIT, PortState.INIT, 4), "Init to Active skips Armed");
        assertNull(PortStateTransition.apply(PortState.ARMED, PortState.INIT, 4), "the neighbour is not Armed");
        assertNull(PortStateTransition.apply(PortState.ACTIVE, PortState.ACTIVE, 2), "Init cannot be set");
        assertNull(PortStateTransition.apply(PortState.DOWN, null, 3), "an uncabled port stays Down");
        assertEquals(PortState.INIT, PortStateTransition.apply(PortState.ACTIVE, PortState.ACTIVE, 1));
        assertNull(PortStateTransition.apply(PortState.INIT, PortState.INIT, 5));
    }

    @Test
    void aRunOfPacketsCountsAsTheSamePacketsOneByOne() {
        PortCounters run = new PortCounters();
        PortCounters single = new PortCounters();
        run.transmitted(3000, 3, true);
        run.received(200, 2, false);
        for (int i = 0; i < 3; i++) {
            single.transmitted(1000, true);
        }
        single.received(100, false);
        single.received(100, false);
        for (PortCounter c : PortCounter.values()) {
            assertEquals(single.get(c), run.get(c), c.name());
        }
    }

    @Test
    void switchTablesForwardOnlyProgrammedLidsUpToTheTop() {
        SwitchTables s = new SwitchTables(36);
        s.setLinearEntry(5, 3);
        assertEquals(SwitchTables.NO_PORT, s.unicastPort(5), "above LinearFDBTop");
        s.setLinearFdbTop(5);
        assertEquals(3, s.unicastPort(5));
        assertEquals(SwitchTables.NO_PORT, s.unicastPort(4));
        assertEquals(3, s.positions());
        s.setMulticastMask(0xC001, 2, 1 << (33 % 16));
        assertEquals(true, s.multicastForwards(0xC001, 33));
        assertEquals(false, s.multicastForwards(0xC001, 1));
        assertEquals(false, s.multicastForwards(0xC000, 33));
    }
}
