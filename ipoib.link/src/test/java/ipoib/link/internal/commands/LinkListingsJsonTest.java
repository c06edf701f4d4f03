package ipoib.link.internal.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkFixture;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ipoib:links}, {@code paths}, {@code stats} and {@code cm} with {@code --json}, read by a
 * real JSON parser: the shape the README's command reference documents (one object, an array of
 * records per listing, the field names listed there), the values those of the interfaces.
 */
class LinkListingsJsonTest {
    static final Set<String> LINK_FIELDS = Set.of("name", "state", "reason", "refusedUpdate", "device", "port",
            "provider", "pkey", "pkeyInUse", "broadcastGid", "mode", "qpn", "gid", "linkAddress", "mtu", "qkey",
            "serviceLevel");
    static final Set<String> STATS_FIELDS = Set.of("name", "state", "rxPackets", "rxBytes", "rxMulticast", "rxErrors",
            "txPackets", "txBytes", "txMulticast", "txErrors", "txDropped", "handlerErrors", "portQkeyViolations",
            "drops");
    static final Set<String> PATH_FIELDS = Set.of("destinationGid", "lid", "serviceLevel", "mtu", "rate");
    static final Set<String> CONNECTION_FIELDS = Set.of("direction", "state", "peerQpn", "peerLid", "peerGid",
            "localRcQpn", "remoteRcQpn", "sendPsn", "receivePsn", "mtu", "idleSeconds", "txPackets", "txBytes",
            "rxPackets", "rxBytes", "errors", "setupMillis", "why");

    final LinkFixture fixture = new LinkFixture();
    final List<IpoibLink> links = new CopyOnWriteArrayList<>();
    final LinkReport report = new LinkReport(links, Map.of());
    LinkEngine a;
    LinkEngine b;

    @AfterEach
    void close() {
        fixture.close();
    }

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    LinkEngine up(String name, String device, boolean connected) {
        LinkEngine e = fixture.engine(LinkFixture.config(name, device));
        e.setConnectedMode(connected);
        e.providerAvailable(fixture.subnet);
        fixture.until(name + " UP", () -> e.state() == LinkState.UP);
        links.add(e);
        return e;
    }

    LinkPath path(LinkEngine from, LinkEngine to) throws Exception {
        CompletableFuture<LinkPath> f = from.acquirePath(to.gid(), false).toCompletableFuture();
        fixture.until("the path", f::isDone);
        return f.get();
    }

    @Test
    void linksListEveryInterfaceWithTheFieldsOfTheTextListing() {
        b = up("b", "loop1", false);
        a = up("a", "loop0", false);
        JsonObject json = parse(report.linksJson());
        assertEquals(Set.of("links", "refused", "notStarted"), json.keySet());
        JsonArray records = json.getJsonArray("links");
        assertEquals(2, records.size());
        JsonObject first = records.getJsonObject(0);
        assertEquals(LINK_FIELDS, first.keySet());
        assertEquals("a", first.getString("name"), "sorted by name, as the text");
        assertEquals("UP", first.getString("state"));
        assertEquals("loop0", first.getString("device"));
        assertEquals(1, first.getInt("port"));
        assertEquals("0xffff", first.getString("pkey"));
        assertEquals("ff12:401b:ffff::ffff:ffff", first.getString("broadcastGid"), "RFC 4391 §4's broadcast GID");
        assertEquals(2044, first.getInt("mtu"), "RFC 4391 §4: the 2048-octet IB MTU less the 4-octet header");
        assertEquals("datagram", first.getString("mode"));
        assertEquals(a.address().toString(), first.getString("linkAddress"));
        assertEquals(a.qpn().toString(), first.getString("qpn"));

        JsonObject one = parse(report.linksJson("b"));
        assertEquals(List.of("b"), one.getJsonArray("links").stream().map(v -> v.asJsonObject().getString("name")).toList());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> report.linksJson("nosuch"));
        assertTrue(none.getMessage().contains("no interface 'nosuch'\nusage: ipoib:links [interface] [--json]"),
                none.getMessage());
    }

    /**
     * At start, configuration admin hands the stored configurations to the components after the
     * shell is up: an interface configured but not started is listed as such, not as absent.
     */
    @Test
    void aConfiguredInterfaceWithoutItsComponentIsListedAsNotStarted() {
        a = up("a", "loop0", false);
        // "a" started between the read of the configurations and the read of the interfaces.
        LinkReport starting = new LinkReport(links, Map.of(), () -> List.of("a", "storage"));
        String text = starting.links();
        assertTrue(text.startsWith("a: UP"), text);
        assertTrue(text.contains("\nstorage: NOT STARTED (configured, no interface yet; ipoib:await storage waits for it"),
                text);
        assertEquals(1, text.lines().filter(l -> l.startsWith("a: ")).count(), "a is listed once: " + text);
        assertTrue(starting.links("storage").startsWith("storage: NOT STARTED"), starting.links("storage"));
        JsonObject json = parse(starting.linksJson());
        assertEquals(List.of("storage"),
                json.getJsonArray("notStarted").stream().map(v -> v.asJsonObject().getString("name")).toList());
        assertEquals(List.of("a"), json.getJsonArray("links").stream().map(v -> v.asJsonObject().getString("name")).toList());
        assertEquals("no IPoIB interfaces (create one with ipoib:create)",
                new LinkReport(List.of(), Map.of(), List::of).links());
    }

    @Test
    void providersWithTheirDevicesAndPorts() {
        JsonObject json = parse(ProviderCommands.json(List.of(fixture.subnet)));
        JsonObject loopback = json.getJsonArray("providers").getJsonObject(0);
        assertEquals(Set.of("name", "available", "reason", "devices"), loopback.keySet());
        assertTrue(loopback.getBoolean("available"));
        JsonObject loop0 = loopback.getJsonArray("devices").getJsonObject(0);
        assertEquals("loop0", loop0.getString("name"));
        JsonObject port = loop0.getJsonArray("ports").getJsonObject(0);
        assertEquals(Set.of("port", "state", "lid", "mtu", "pkeys"), port.keySet());
        assertEquals(1, port.getInt("port"));
        assertEquals(2048, port.getInt("mtu"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ProviderCommands().providers("x"));
        assertTrue(e.getMessage().contains("usage: ipoib:providers [--json]"), e.getMessage());
    }

    @Test
    void pathsStatsAndConnectionsAsRecords() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", true);
        LinkPath ab = path(a, b);
        a.sendUnicast(ab, b.address(), 0x88B5, MemorySegment.ofArray(new byte[100]));
        fixture.until("a's connection up", () -> a.connectedMode().connections().stream()
                .anyMatch(c -> c.state == ipoib.link.internal.cm.CmLinkConnection.State.UP));

        JsonObject paths = parse(report.pathsJson("a"));
        JsonObject aPaths = paths.getJsonArray("paths").getJsonObject(0);
        assertEquals(Set.of("name", "state", "paths", "counters"), aPaths.keySet());
        JsonObject toB = aPaths.getJsonArray("paths").getJsonObject(0);
        assertEquals(PATH_FIELDS, toB.keySet());
        assertEquals(b.gid().toString(), toB.getString("destinationGid"));
        assertEquals(2048, toB.getInt("mtu"), "the fabric's 2048-octet MTU, in octets");

        JsonObject stats = parse(report.statsJson());
        assertEquals(Set.of("stats", "resolvers"), stats.keySet());
        JsonObject aStats = stats.getJsonArray("stats").getJsonObject(0);
        assertEquals(STATS_FIELDS, aStats.keySet());
        assertEquals(a.counters().txPackets(), aStats.getJsonNumber("txPackets").longValue());
        assertTrue(aStats.getJsonNumber("txPackets").longValue() >= 1);

        JsonObject cm = parse(CmCommand.cmJson(LinkCommands.sorted(links)));
        JsonObject aCm = cm.getJsonArray("cm").getJsonObject(0);
        assertEquals("connected", aCm.getString("mode"));
        assertTrue(aCm.getString("serviceId").startsWith("0x"), aCm.toString());
        JsonObject connection = aCm.getJsonArray("connections").stream().map(v -> v.asJsonObject())
                .filter(c -> c.getString("direction").equals("tx")).findFirst().orElseThrow();
        assertEquals(CONNECTION_FIELDS, connection.keySet());
        assertEquals("UP", connection.getString("state"));
        assertEquals(b.qpn().value(), Integer.decode(connection.getString("peerQpn")));
    }
}
