package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code ipoib:events --json}, read by a real JSON parser: the shape docs/JSON.md documents. */
class EventsJsonTest {

    @Test
    void theRingsEventsAsRecords() throws Exception {
        EventRing ring = new EventRing();
        ring.add("ipoib/link/DOWN", Map.of("link", "ib0_1_ffff", "reason", "port \"loop0/1\" went down"), Instant.EPOCH);
        ConsoleCommands commands = new ConsoleCommands(ring, null);
        JsonObject json;
        try (var reader = Json.createReader(new StringReader(commands.events("--json")))) {
            json = reader.readObject();
        }
        assertEquals(Set.of("events", "overwritten"), json.keySet());
        assertEquals(0, json.getInt("overwritten"));
        JsonObject event = json.getJsonArray("events").getJsonObject(0);
        assertEquals(Set.of("sequence", "time", "topic", "properties"), event.keySet());
        assertEquals("1970-01-01T00:00:00Z", event.getString("time"));
        assertEquals("ipoib/link/DOWN", event.getString("topic"));
        assertEquals("port \"loop0/1\" went down", event.getJsonObject("properties").getString("reason"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.events("--json", "-f"));
        assertTrue(e.getMessage().contains("usage: ipoib:events [-f [seconds]] | ipoib:events --json"), e.getMessage());
    }
}
