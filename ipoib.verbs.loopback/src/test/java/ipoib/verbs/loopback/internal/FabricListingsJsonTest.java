package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fabric listings with {@code --json} on {@code examples/two-switches.net}, read by a real
 * JSON parser: the shape the README's command reference documents, the values of the net file.
 */
class FabricListingsJsonTest {
    private LoopbackSubnet subnet;
    private FabricCommands commands;

    @BeforeEach
    void setUp() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(dir.resolve("examples"))) {
            dir = dir.getParent();
        }
        FabricConfig d = FabricConfig.defaults();
        subnet = new LoopbackSubnet(new FabricConfig(1, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 1, 0, dir.resolve("examples/two-switches.net").toString()), 200, 3);
        commands = new FabricCommands(subnet.fabric(), subnet.subnetAdministrator());
    }

    @AfterEach
    void tearDown() {
        subnet.close();
    }

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void topologyHasTheNodesAndCablesOfTheNetFile() {
        JsonObject json = parse(commands.topology("--json"));
        assertEquals(Set.of("nodes"), json.keySet());
        JsonObject sw1 = json.getJsonArray("nodes").stream().map(JsonValue::asJsonObject)
                .filter(n -> n.getString("name").equals("sw1")).findFirst().orElseThrow();
        assertEquals(Set.of("name", "type", "guid", "device", "lid", "ports"), sw1.keySet());
        assertEquals("switch", sw1.getString("type"));
        JsonObject port7 = sw1.getJsonArray("ports").stream().map(JsonValue::asJsonObject)
                .filter(p -> p.getInt("port") == 7).findFirst().orElseThrow();
        assertEquals(Set.of("port", "peer", "state", "physicalState", "lid", "guid"), port7.keySet());
        assertEquals("sw2", port7.getJsonObject("peer").getString("node"), "[7] \"sw2\"[7] in the net file");
        assertEquals(7, port7.getJsonObject("peer").getInt("port"));
        JsonObject hca1 = json.getJsonArray("nodes").stream().map(JsonValue::asJsonObject)
                .filter(n -> n.getString("name").equals("hca1")).findFirst().orElseThrow();
        assertEquals("hca", hca1.getString("type"));
        assertEquals("loop1", hca1.getString("device"), "the second HCA of the file is loop1");
        assertEquals("sw2", hca1.getJsonArray("ports").getJsonObject(0).getJsonObject("peer").getString("node"));
    }

    @Test
    void hcasPortsGroupsStatsAndTheSa() {
        JsonObject hcas = parse(commands.hcas("--json"));
        assertEquals(List.of("loop0", "loop1", "loop2", "loop3"),
                hcas.getJsonArray("hcas").stream().map(v -> v.asJsonObject().getString("device")).toList());
        JsonObject port = hcas.getJsonArray("hcas").getJsonObject(0).getJsonArray("ports").getJsonObject(0);
        assertEquals(Set.of("port", "guid", "lid", "state", "mtu", "rate", "gid", "pkeys"), port.keySet());
        assertEquals(2048, port.getInt("mtu"), "the configured MTU_2048, in octets");
        assertTrue(port.getJsonArray("pkeys").getValuesAs(jakarta.json.JsonString::getString).contains("0xffff"),
                port.toString());

        JsonObject ports = parse(commands.ports("--json"));
        // Four HCA cables and two inter-switch cables, each seen from both ends.
        assertEquals(12, ports.getJsonArray("ports").size());
        JsonObject first = ports.getJsonArray("ports").getJsonObject(0);
        assertEquals(Set.of("port", "counters"), first.keySet());

        JsonObject groups = parse(commands.groups("--json"));
        assertEquals(Set.of("groups"), groups.keySet());
        for (JsonValue g : groups.getJsonArray("groups")) {
            assertEquals(Set.of("mgid", "mlid", "qkey", "pkey", "mtu", "serviceLevel", "configured", "members"),
                    g.asJsonObject().keySet());
        }

        JsonObject stats = parse(commands.stats("--json"));
        assertEquals(Set.of("counters", "rc", "drops"), stats.keySet());
        JsonObject sa = parse(commands.sa("--json"));
        assertEquals(Set.of("statistics", "faults", "sendOnlyFullMember", "trapSubscriptions"), sa.keySet());
        assertTrue(sa.getBoolean("sendOnlyFullMember"));
    }

    @Test
    void faultsPerPortAndOfTheSa() {
        commands.fault("loss", "20", "loop1/1");
        commands.fault("sa-delay", "300");
        JsonObject json = parse(commands.faults("--json"));
        assertEquals(Set.of("ports", "sa"), json.keySet());
        JsonObject loop1 = json.getJsonArray("ports").stream().map(JsonValue::asJsonObject)
                .filter(p -> p.getString("port").equals("loop1/1")).findFirst().orElseThrow();
        assertEquals(Set.of("port", "lossPercent", "duplicatePercent", "reorderPercent", "delayMillis", "corruptPercent"),
                loop1.keySet());
        assertEquals(20, loop1.getInt("lossPercent"));
        JsonObject loop0 = json.getJsonArray("ports").stream().map(JsonValue::asJsonObject)
                .filter(p -> p.getString("port").equals("loop0/1")).findFirst().orElseThrow();
        assertEquals(0, loop0.getInt("lossPercent"));
        assertEquals(Set.of("dropPercent", "delayMillis", "errorPercent", "errorStatus", "trapLossPercent",
                "rmppLossPercent"), json.getJsonObject("sa").keySet());
        assertEquals(300, json.getJsonObject("sa").getInt("delayMillis"));
    }

    @Test
    void aListingTakesOnlyTheFlag() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.hcas("x"));
        assertTrue(e.getMessage().contains("fabric:hcas: wrong arguments 'x'\nusage: fabric:hcas [--json]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> commands.topology("--json", "--net"));
        assertTrue(e.getMessage().contains("usage: fabric:topology [--net | --json]"), e.getMessage());
    }
}
