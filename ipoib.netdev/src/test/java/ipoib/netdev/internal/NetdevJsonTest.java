package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code ipoib:netdev --json}, read by a real JSON parser: the shape the README's command reference documents. */
class NetdevJsonTest {
    static final Set<String> DEVICE_FIELDS = Set.of("interface", "device", "netns", "mtu", "up", "offload",
            "addresses", "groups", "counters", "error");

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void withoutDevicesTheListingIsEmptyArrays() throws Exception {
        JsonObject json = parse(new NetdevCommands(null).netdev("--json"));
        assertEquals(Set.of("devices", "parked", "reconciliationFailures"), json.keySet());
        assertEquals(0, json.getJsonArray("devices").size());
        assertEquals(0, json.getJsonArray("parked").size());
    }

    @Test
    void aDeviceIsOneRecord() throws Exception {
        Map<String, Long> counters = new LinkedHashMap<>();
        counters.put("tx_packets", 3L);
        counters.put("rx_packets", 0L);
        String text = ipoib.runtime.JsonText.of(NetdevCommands.deviceRecord("ib0_1_ffff", "ib0", "h1", 2044, true, true,
                List.of(new Cidr(InetAddress.ofLiteral("10.0.0.1"), 24)), List.of("224.0.0.1"), counters, null));
        JsonObject device = parse(text);
        assertEquals(DEVICE_FIELDS, device.keySet());
        assertEquals("ib0", device.getString("device"));
        assertEquals("h1", device.getString("netns"));
        assertEquals(2044, device.getInt("mtu"));
        assertTrue(device.getBoolean("up"));
        assertEquals("10.0.0.1/24", device.getJsonArray("addresses").getString(0));
        assertEquals("224.0.0.1", device.getJsonArray("groups").getString(0));
        assertEquals(3, device.getJsonObject("counters").getInt("tx_packets"));
        assertEquals(JsonValue.NULL, device.get("error"));
    }

    @Test
    void theFlagGoesWithTheListOnly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new NetdevCommands(null).netdev("del", "ib0_1_ffff", "--json"));
        assertTrue(e.getMessage().contains("--json goes with the list only"), e.getMessage());
        assertTrue(e.getMessage().contains("usage: ipoib:netdev [list] [--json]"), e.getMessage());
    }
}
