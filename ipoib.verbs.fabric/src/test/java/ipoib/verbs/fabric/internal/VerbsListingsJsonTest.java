package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.Device;
import ipoib.api.sa.MadTransport;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.VerbsProvider;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@code verbs:devices --json} and {@code verbs:port ... --json}, read by a real JSON parser. */
class VerbsListingsJsonTest {
    private static final long PREFIX = 0xfe80_0000_0000_0000L;

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void withoutDevicesTheListingSaysWhy() {
        FabricVerbsProvider provider = new FabricVerbsProvider(new TestConfig(), java.util.Map.of(),
                new TestConfig.RecordingLog().logger());
        try {
            JsonObject json = parse(new VerbsCommands(provider).devices("--json"));
            assertEquals(Set.of("available", "reason", "devices"), json.keySet());
            assertFalse(json.getBoolean("available"));
            assertEquals(provider.status().reason(), json.getString("reason"));
            assertEquals(0, json.getJsonArray("devices").size());
        } finally {
            provider.close();
        }
    }

    @Test
    void aDeviceIsARecordWithItsPorts() {
        JsonObject json = parse(new VerbsCommands(provider()).devices("--json"));
        assertTrue(json.getBoolean("available"));
        assertEquals(1, json.getJsonArray("devices").size());
        JsonObject device = json.getJsonArray("devices").getJsonObject(0);
        assertEquals(Set.of("name", "nodeGuid", "firmware", "vendorId", "vendorPartId", "ports"), device.keySet());
        assertEquals("mlx5_0", device.getString("name"));
        assertEquals(new Guid(0x0002_c903_0000_0100L).toString(), device.getString("nodeGuid"));
        assertEquals(JsonValue.NULL, device.get("firmware"), "a device of another provider has no firmware field");
        JsonObject up = device.getJsonArray("ports").getJsonObject(0);
        assertEquals(Set.of("device", "port", "state", "lid", "smLid", "mtu", "maxMtu", "rate", "linkLayer", "error"),
                up.keySet());
        assertEquals(1, up.getInt("port"));
        assertEquals("ACTIVE", up.getString("state"));
        assertEquals("0x0003", up.getString("lid"));
        assertEquals("0x0001", up.getString("smLid"));
        assertEquals(2048, up.getInt("mtu"));
        assertEquals(4096, up.getInt("maxMtu"));
        assertEquals(Rate.RATE_10_GBPS.toString(), up.getString("rate"));
        assertEquals(JsonValue.NULL, up.get("error"));
        JsonObject failing = device.getJsonArray("ports").getJsonObject(1);
        assertEquals(2, failing.getInt("port"));
        assertEquals(JsonValue.NULL, failing.get("state"));
        assertEquals("ibv_query_port failed: EIO", failing.getString("error"));
    }

    @Test
    void aPortHasItsGidsPKeysAndConnectedMode() {
        JsonObject json = parse(new VerbsCommands(provider()).port("mlx5_0", "1", "--json"));
        assertEquals(Set.of("port"), json.keySet());
        JsonObject port = json.getJsonObject("port");
        assertEquals(Set.of("device", "port", "state", "lid", "smLid", "mtu", "maxMtu", "rate", "linkLayer", "lmc",
                "smServiceLevel", "subnetPrefix", "gids", "pkeys", "connectedMode", "error"), port.keySet());
        assertEquals("mlx5_0", port.getString("device"));
        assertEquals(0, port.getInt("lmc"));
        assertEquals(new Gid(PREFIX, 0).toString(), port.getString("subnetPrefix"));
        assertEquals(1, port.getJsonArray("gids").size(), "GID[1] is zero and left out, as in the text");
        assertEquals(0, port.getJsonArray("gids").getJsonObject(0).getInt("index"));
        assertEquals(new Gid(PREFIX, 0x0002_c903_0000_0101L).toString(),
                port.getJsonArray("gids").getJsonObject(0).getString("gid"));
        assertEquals(List.of("0xffff", "0x8001"), port.getJsonArray("pkeys").getValuesAs(JsonValue::toString).stream()
                .map(s -> s.replace("\"", "")).toList());
        assertFalse(port.getJsonObject("connectedMode").getBoolean("available"));
    }

    @Test
    void theArgumentsAreCheckedAsWithoutTheFlag() {
        VerbsCommands commands = new VerbsCommands(provider());
        assertEquals("usage: verbs:port <device> <port> [--json], e.g. verbs:port mlx5_0 1",
                assertThrows(IllegalArgumentException.class, () -> commands.port("mlx5_0", "--json")).getMessage());
        assertEquals("no device 'mlx4_0': allowed [mlx5_0]", assertThrows(IllegalArgumentException.class,
                () -> commands.port("mlx4_0", "1", "--json")).getMessage());
        assertEquals("verbs:devices: wrong arguments 'x --json'\nusage: verbs:devices [--json]",
                assertThrows(IllegalArgumentException.class, () -> commands.devices("x", "--json")).getMessage());
    }

    /** One device of two ports: port 1 ACTIVE, port 2 failing its query. */
    private static VerbsProvider provider() {
        Device device = new StubDevice();
        return new VerbsProvider() {
            @Override
            public String name() {
                return "fabric";
            }

            @Override
            public ProviderStatus status() {
                return new ProviderStatus(true, "1 device");
            }

            @Override
            public List<Device> devices() {
                return List.of(device);
            }
        };
    }

    private static final class StubDevice implements Device {
        private final List<Port> ports = List.of(new StubPort(this, 1), new StubPort(this, 2));

        @Override
        public String name() {
            return "mlx5_0";
        }

        @Override
        public Guid nodeGuid() {
            return new Guid(0x0002_c903_0000_0100L);
        }

        @Override
        public List<Port> ports() {
            return ports;
        }

        @Override
        public MemoryRegion registerMemory(MemorySegment segment) {
            throw new UnsupportedOperationException();
        }
    }

    private record StubPort(Device device, int number) implements Port {
        @Override
        public PortAttributes attributes() {
            if (number == 2) {
                throw new VerbsException("ibv_query_port failed: EIO");
            }
            return new PortAttributes(PortState.ACTIVE, new Lid(3), 0, new Lid(1), 0, IbMtu.MTU_2048, IbMtu.MTU_4096,
                    Rate.RATE_10_GBPS, PREFIX, 2, 2);
        }

        @Override
        public Gid gid(int index) {
            return index == 0 ? new Gid(PREFIX, 0x0002_c903_0000_0101L) : Gid.ZERO;
        }

        @Override
        public PKeyTable pkeyTable() {
            return PKeyTable.of(List.of(new PKey(0xffff), new PKey(0x8001)));
        }

        @Override
        public AutoCloseable addEventListener(Consumer<PortEvent> listener) {
            return () -> { };
        }

        @Override
        public CompletionQueue createCompletionQueue(int capacity) {
            throw new UnsupportedOperationException();
        }

        @Override
        public UdQueuePair createUdQueuePair(UdQueuePairConfig config) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AddressHandle createAddressHandle(AddressVector vector) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MadTransport madTransport() {
            throw new UnsupportedOperationException();
        }

        @Override
        public SubnetAdministrator subnetAdministrator() {
            throw new UnsupportedOperationException();
        }
    }
}
