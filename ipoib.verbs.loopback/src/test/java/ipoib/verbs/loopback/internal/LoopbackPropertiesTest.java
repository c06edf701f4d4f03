package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every loopback property is checked as the user gave it, before Declarative Services converts
 * it: the message names the PID, the property, the value and what is allowed.
 */
class LoopbackPropertiesTest {

    private static String refusal(Map<String, ?> properties) {
        return assertThrows(IllegalArgumentException.class, () -> LoopbackProvider.checkProperties(properties))
                .getMessage();
    }

    @Test
    void aLongBeyond32BitsIsRefusedNotTruncated() {
        // DS would turn 4294967298 into the int 2: a valid-looking topology from a typo.
        assertEquals("invalid ipoib.verbs.loopback property 'hcas' value 4294967298 is out of range: allowed 1..1024",
                refusal(Map.of("hcas", 4_294_967_298L)));
    }

    @Test
    void textForANumberNamesTheProperty() {
        assertEquals("invalid ipoib.verbs.loopback property 'saTimeoutMillis' value 'abc' is not a number: allowed "
                + "10..60000", refusal(Map.of("saTimeoutMillis", "abc")));
    }

    @Test
    void anMtuOutsideItsOptionsIsRefused() {
        String message = refusal(Map.of("mtu", 1500));
        assertEquals(true, message.startsWith("invalid ipoib.verbs.loopback property 'mtu' value 1500"), message);
    }

    @Test
    void anLmcAboveSevenIsRefused() {
        assertEquals("invalid ipoib.verbs.loopback property 'lmc' value 8 is out of range: allowed 0..7",
                refusal(Map.of("lmc", 8)));
    }

    @Test
    void validValuesAndForeignPropertiesPass() {
        assertDoesNotThrow(() -> LoopbackProvider.checkProperties(Map.of("hcas", 3, "portsPerHca", 2, "seed",
                Long.MAX_VALUE, "service.pid", "ipoib.verbs.loopback")));
    }

    @Test
    void anExternalSmWithoutTheSimulatorServerIsRefusedWithTheReason() {
        assertEquals("invalid loopback property 'sm' value 'external' with simulator 'off': an external SM attaches "
                + "through the simulator server; allowed with simulator 'local' or 'udp'",
                LoopbackProvider.refusal(Map.of("sm", "external")));
        assertEquals(null, LoopbackProvider.refusal(Map.of("sm", "external", "simulator", "local")));
    }

    @Test
    void anUnknownSmOrSimulatorModeIsRefusedByTheMetatype() {
        assertEquals(true, refusal(Map.of("sm", "opensm")).startsWith("invalid ipoib.verbs.loopback property 'sm' "
                + "value 'opensm'"), refusal(Map.of("sm", "opensm")));
        assertEquals(true, refusal(Map.of("simulator", "tcp")).startsWith("invalid ipoib.verbs.loopback property "
                + "'simulator' value 'tcp'"));
        assertEquals("invalid ipoib.verbs.loopback property 'simulatorPort' value 65530 is out of range: allowed "
                + "1024..65525", refusal(Map.of("simulatorPort", 65530)));
    }

    @Test
    void aSocketNameOutsideItsCharactersIsRefused() {
        assertEquals("invalid loopback property 'simulatorName' value 'my sim': allowed 1..64 letters, digits, '.', "
                + "'_' or '-' (the sockets are @NAME:ctl, @NAME:out0..9)",
                LoopbackProvider.refusal(Map.of("simulatorName", "my sim")));
    }

    @Test
    void theSubnetManagerCannotChangeWhileTheFabricRuns() {
        ManagementSettings emulated = ManagementSettings.of("emulated", "local", "ipoib", 7070);
        ManagementSettings external = ManagementSettings.of("external", "local", "ipoib", 7070);
        assertEquals("loopback property 'sm' cannot change from 'emulated' to 'external' while the fabric runs: the "
                + "interfaces' LIDs, groups and paths belong to the SM in force; set it before start "
                + "(./ipoib --opensm starts with sm=external)", external.refusalToReplace(emulated));
        assertEquals(null, ManagementSettings.of("emulated", "udp", "x", 9000).refusalToReplace(emulated),
                "under the emulated SM the simulator's settings may change: the fabric is rebuilt");
    }

    /** A new fabric would leave an attached OpenSM managing none: nothing changes under an external SM. */
    @Test
    void nothingChangesWhileAnExternalSmManagesTheFabric() {
        ManagementSettings external = ManagementSettings.of("external", "local", "ipoib", 7070);
        String refusal = ManagementSettings.of("external", "udp", "x", 9000).refusalToReplace(external);
        assertEquals("the loopback's configuration cannot change while an external SM manages the fabric: a new "
                + "fabric would leave it and the attached tools without one; set it before start (stop the appliance, "
                + "then ./ipoib --opensm with the new configuration stored)", refusal);
        assertEquals(refusal, external.refusalToReplace(external));
    }
}
