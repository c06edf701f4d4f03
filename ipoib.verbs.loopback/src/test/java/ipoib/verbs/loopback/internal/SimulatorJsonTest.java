package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import ipoib.verbs.loopback.ibsim.SimulatorServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code fabric:simulator --json}, read by a real JSON parser. */
class SimulatorJsonTest {

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void withTheServerOffItIsNull() {
        JsonObject json = parse(new SimulatorCommands(ManagementSettings.of("emulated", "off", "sim", 7070), null)
                .simulator("--json"));
        assertEquals(Set.of("sm", "simulator", "serverState", "server"), json.keySet());
        assertEquals("emulated", json.getString("sm"));
        assertEquals("off", json.getString("simulator"));
        assertEquals("off", json.getString("serverState"));
        assertEquals(JsonValue.NULL, json.get("server"));
        assertEquals("not_running", parse(new SimulatorCommands(ManagementSettings.of("external", "local", "sim", 7070),
                null).simulator("--json")).getString("serverState"), "configured, but its sockets were taken");
    }

    @Test
    void aRunningServerHasItsAddressClientsAndCounters() throws Exception {
        String name = "ipoib-json-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        try (LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 3,
                LoopbackSubnet.UNTRUSTED_SM_KEY, true, false);
             SimulatorServer server = SimulatorServer.local(name, subnet.managementPlane(), s -> { }, s -> { })) {
            JsonObject json = parse(new SimulatorCommands(ManagementSettings.of("emulated", "local", name, 7070), server)
                    .simulator("--json"));
            assertEquals("running", json.getString("serverState"));
            JsonObject s = json.getJsonObject("server");
            assertEquals(Set.of("address", "clientEnvironment", "clients", "counters"), s.keySet());
            assertEquals(server.describe(), s.getString("address"));
            assertEquals("IBSIM_SOCKNAME=" + name, s.getString("clientEnvironment"));
            assertEquals(0, s.getJsonArray("clients").size());
            assertEquals(Set.of("madsFromClients", "madsToClients", "malformedDropped", "clientsRefused",
                    "clientsVanished", "madsForDetachedClients"), s.getJsonObject("counters").keySet());
            assertEquals(0, s.getJsonObject("counters").getInt("madsFromClients"));
        }
    }

    @Test
    void otherArgumentsAreRefusedWithTheUsage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SimulatorCommands(ManagementSettings.of("emulated", "off", "sim", 7070), null)
                        .simulator("clients", "--json"));
        assertTrue(e.getMessage().endsWith("usage: fabric:simulator [--json]"), e.getMessage());
    }
}
