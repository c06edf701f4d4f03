package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The {@code fabric:*} commands' answers to bad arguments: what was wrong, what is allowed, nothing changed. */
class FabricCommandsTest {
    private LoopbackSubnet subnet;
    private FabricCommands commands;
    private LoopPort port;

    @BeforeEach
    void setUp() {
        subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 3);
        commands = new FabricCommands(subnet.fabric(), subnet.subnetAdministrator());
        port = subnet.fabric().port("loop1", 1);
    }

    @AfterEach
    void tearDown() {
        subnet.close();
    }

    @Test
    void pkeysWithoutKeysIsRefusedAndTheTableStays() {
        String before = port.pkeyTable().toString();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.pkeys("loop1/1"));
        assertTrue(e.getMessage().contains("no P_Keys given for"), e.getMessage());
        assertTrue(e.getMessage().contains("'none' to empty it"), e.getMessage());
        assertTrue(e.getMessage().contains("usage: fabric:pkeys <device/port> <pkey>..."), e.getMessage());
        assertEquals(before, port.pkeyTable().toString(), "the table is unchanged");
    }

    @Test
    void pkeysNoneEmptiesTheTableOnPurpose() {
        String answer = commands.pkeys("loop1/1", "none");
        assertTrue(port.pkeyTable().toString().equals(answer.substring(answer.indexOf("P_Keys ") + 7)), answer);
        assertTrue(!port.pkeyTable().toString().contains("0xffff"), port.pkeyTable().toString());
        commands.pkeys("loop1/1", "0xffff");
        assertTrue(port.pkeyTable().toString().contains("0xffff"), port.pkeyTable().toString());
    }

    @Test
    void anUnknownFaultListsThePortAndTheSaKinds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.fault("bogus", "5"));
        for (String kind : new String[] {"loss", "duplicate", "reorder", "delay", "corrupt", "sa-drop", "sa-delay",
                "sa-error", "sa-status", "trap-loss", "sa-rmpp-loss"}) {
            assertTrue(e.getMessage().contains(kind), kind + " in " + e.getMessage());
        }
        assertTrue(e.getMessage().startsWith("unknown fault 'bogus': allowed "), e.getMessage());
    }

    @Test
    void anSaFaultIsRecognisedInAnyCase() {
        String answer = commands.fault("SA-DROP", "40");
        assertTrue(answer.startsWith("SA faults: sa-drop=40%"), answer);
        assertTrue(subnet.subnetAdministrator().faults().any(), "the SA's faults changed");
    }

    @Test
    void anSaFaultOnOnePortIsRefusedAndNothingChanges() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> commands.fault("trap-loss", "5", "loop1/1"));
        assertTrue(e.getMessage().contains("SA faults apply to the whole subnet, not to a port"), e.getMessage());
        assertTrue(e.getMessage().contains("fabric:fault <sa-drop|sa-delay|sa-error|sa-status|trap-loss|sa-rmpp-loss>"),
                e.getMessage());
        assertTrue(!subnet.subnetAdministrator().faults().any(), "the SA's faults are unchanged");
    }

    /** Each kind's value is checked against its own range, whatever the sign or the spelling. */
    @Test
    void aFaultValueIsRefusedWithItsKindsRangeAndNothingChanges() {
        for (String[] bad : new String[][] {{"loss", "200"}, {"loss", "-5"}, {"loss", "abc"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.fault(bad));
            assertTrue(e.getMessage().startsWith("fault 'loss': value '" + bad[1] + "' is "), e.getMessage());
            assertTrue(e.getMessage().contains(": allowed 0..100 (percent)\nusage: fabric:fault"), e.getMessage());
        }
        IllegalArgumentException delay = assertThrows(IllegalArgumentException.class, () -> commands.fault("delay", "-1"));
        assertTrue(delay.getMessage().contains("allowed 0..60000 (ms)"), delay.getMessage());
        IllegalArgumentException status = assertThrows(IllegalArgumentException.class,
                () -> commands.fault("sa-status", "0"));
        assertTrue(status.getMessage().contains("allowed 1..65535 (MAD status)"), status.getMessage());
        assertTrue(!subnet.fabric().faults(port).any(), "the port's faults are unchanged");
        assertTrue(!subnet.subnetAdministrator().faults().any(), "the SA's faults are unchanged");
    }

    /** A device alone names no port: refused with the usage, nothing taken down. */
    @Test
    void aDeviceWithoutItsPortIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.down("loop0"));
        assertTrue(e.getMessage().startsWith("'loop0' names no port: expected a device/port (loop0/1)"), e.getMessage());
        assertTrue(e.getMessage().contains("usage: fabric:down <device/port> | <node> <port>"), e.getMessage());
        assertTrue(commands.down("loop0/1").startsWith("loop0/1 DOWN"));
    }
}
