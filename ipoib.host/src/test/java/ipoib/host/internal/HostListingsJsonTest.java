package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.LinkAddress;
import ipoib.api.Lid;
import ipoib.api.host.AddressOrigin;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourState;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code ipoib:neigh --json} and {@code ipoib:addr --json} through Gogo's processor, read by a
 * real JSON parser: the shape the README's command reference documents.
 */
class HostListingsJsonTest {
    static final Set<String> NEIGHBOUR_FIELDS = Set.of("address", "interface", "linkAddress", "lid", "serviceLevel",
            "state", "ageMillis", "queued", "connected", "permanent");
    static final Set<String> ADDRESS_FIELDS = Set.of("interface", "family", "address", "prefixLength", "state",
            "origin", "validUntil");
    static final String PEER = "00:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:02:01";

    final AddressTable table = new AddressTable((a, c) -> { });
    final CommandContext context = new CommandContext();

    HostListingsJsonTest() throws Exception {
        IpStackTest.Link a = new IpStackTest.Link("a");
        context.links.add(a);
        table.add("a", InetAddress.getByName("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        table.add("a", InetAddress.getByName("fd00::1"), 64, AddressOrigin.MANUAL, null);
        NeighbourResolver arp = new IpStackTest.Resolver() {
            @Override
            public List<NeighbourEntry> neighbours(String linkName) {
                try {
                    return List.of(
                            new NeighbourEntry("a", InetAddress.getByName("10.0.0.2"), LinkAddress.parse(PEER), Lid.of(2),
                                    0, NeighbourState.RESOLVED, Duration.ofMillis(1500), 0, false),
                            new NeighbourEntry("a", InetAddress.getByName("10.0.0.3"), null, null, -1,
                                    NeighbourState.INCOMPLETE, Duration.ofMillis(20), 3, false));
                } catch (java.net.UnknownHostException e) {
                    throw new AssertionError(e);
                }
            }
        };
        context.resolvers.add(Map.entry(arp, NeighbourResolver.IPV4));
    }

    static JsonObject parse(Object text) {
        try (var reader = Json.createReader(new StringReader((String) text))) {
            return reader.readObject();
        }
    }

    @Test
    void neighboursAsRecordsWithTheTablesColumns() {
        try (GogoRunner gogo = new GogoRunner("ipoib", "neigh", new NeighCommand(context))) {
            for (String line : List.of("ipoib:neigh --json", "ipoib:neigh list a --json", "ipoib:neigh --json a")) {
                JsonObject json = parse(gogo.run(line).value());
                assertEquals(Set.of("neighbours"), json.keySet(), line);
                JsonArray records = json.getJsonArray("neighbours");
                assertEquals(2, records.size(), line);
                JsonObject resolved = records.getJsonObject(0);
                assertEquals(NEIGHBOUR_FIELDS, resolved.keySet());
                assertEquals("10.0.0.2", resolved.getString("address"));
                assertEquals(PEER, resolved.getString("linkAddress"));
                assertEquals("0x0002", resolved.getString("lid"));
                assertEquals("RESOLVED", resolved.getString("state"));
                assertEquals(1500, resolved.getInt("ageMillis"));
                assertFalse(resolved.getBoolean("permanent"));
                JsonObject incomplete = records.getJsonObject(1);
                assertEquals(JsonValue.NULL, incomplete.get("linkAddress"));
                assertEquals(JsonValue.NULL, incomplete.get("serviceLevel"));
                assertEquals(3, incomplete.getInt("queued"));
            }
            ShellCommandsTest.assertUsage(gogo.run("ipoib:neigh flush a --json"), "flush --json",
                    "--json goes with the list only", "ipoib:neigh");
        }
    }

    @Test
    void addressesAsRecords() {
        try (GogoRunner gogo = new GogoRunner("ipoib", "addr", new AddrCommand(table, null, context))) {
            JsonObject json = parse(gogo.run("ipoib:addr --json").value());
            assertEquals(Set.of("addresses"), json.keySet());
            JsonArray records = json.getJsonArray("addresses");
            assertEquals(2, records.size());
            JsonObject v4 = records.stream().map(JsonValue::asJsonObject)
                    .filter(r -> r.getString("family").equals("inet")).findFirst().orElseThrow();
            assertEquals(ADDRESS_FIELDS, v4.keySet());
            assertEquals("10.0.0.1", v4.getString("address"));
            assertEquals(24, v4.getInt("prefixLength"));
            assertEquals("a", v4.getString("interface"));
            assertTrue(records.stream().map(JsonValue::asJsonObject).anyMatch(r -> r.getString("address").equals("fd00::1")
                    && r.getInt("prefixLength") == 64));
            ShellCommandsTest.assertUsage(gogo.run("ipoib:addr await --json"), "await --json",
                    "--json goes with the list only", "ipoib:addr");
            ShellCommandsTest.assertUsage(gogo.run("ipoib:addr nosuch --json"), "nosuch", "no interface 'nosuch'",
                    "ipoib:addr");
        }
    }
}
