package ipoib.mcast.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.GroupOrigin;
import ipoib.api.mcast.MulticastService;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** {@code ipoib:mcast --json}, read by a real JSON parser: the shape the README's command reference documents. */
class McastJsonTest {
    static final Set<String> GROUP_FIELDS = Set.of("interface", "mgid", "ipGroup", "mlid", "joinState", "origin",
            "listeners", "queued", "state");
    static final String BROADCAST = "ff12:401b:ffff::ffff:ffff";

    /** Two groups of ib0: the broadcast group, joined, and a listener's, still joining. */
    static final class Groups implements MulticastService {
        @Override
        public List<GroupInfo> groups(String linkName) {
            if (linkName != null && !linkName.equals("ib0")) {
                throw new IllegalArgumentException("no interface '" + linkName + "'");
            }
            return List.of(
                    new GroupInfo("ib0", Mgid.parse(BROADCAST), null, Lid.of(0xc000), JoinState.FULL_MEMBER,
                            GroupOrigin.BROADCAST, 0, 0, "JOINED"),
                    new GroupInfo("ib0", Mgid.parse("ff12:401b:ffff::e000:1"), InetAddress.ofLiteral("224.0.0.1"), null,
                            null, GroupOrigin.LISTENER, 1, 2, "RETRY in 4 s"));
        }

        @Override public Map<String, Long> counters(String linkName) { return Map.of("joins", 3L, "leaves", 0L); }
        @Override public boolean isRouterMode(String linkName) { return false; }
        @Override public void setRouterMode(String linkName, boolean enabled) { }
        @Override public CompletionStage<GroupInfo> joinListener(String l, InetAddress g) { throw new AssertionError(); }
        @Override public CompletionStage<Void> leaveListener(String l, InetAddress g) { throw new AssertionError(); }
        @Override public TransmitResult send(IpoibLink l, InetAddress g, int e, MemorySegment p) { throw new AssertionError(); }
        @Override public EgressDecision egressDecision(String l, Mgid m) { throw new AssertionError(); }
        @Override public EgressDecision egressDecision(String l, InetAddress g) { throw new AssertionError(); }
    }

    final MulticastCommands commands = new MulticastCommands(new Groups());

    static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @Test
    void groupsAndInterfacesAsRecords() {
        for (String[] args : List.of(new String[] {"--json"}, new String[] {"ib0", "--json"})) {
            JsonObject json = parse(commands.mcast(args));
            assertEquals(Set.of("groups", "interfaces"), json.keySet());
            JsonObject broadcast = json.getJsonArray("groups").getJsonObject(0);
            assertEquals(GROUP_FIELDS, broadcast.keySet());
            assertEquals(BROADCAST, broadcast.getString("mgid"));
            assertEquals(JsonValue.NULL, broadcast.get("ipGroup"));
            assertEquals("0xc000", broadcast.getString("mlid"));
            assertEquals("BROADCAST", broadcast.getString("origin"));
            JsonObject listener = json.getJsonArray("groups").getJsonObject(1);
            assertEquals("224.0.0.1", listener.getString("ipGroup"));
            assertEquals(JsonValue.NULL, listener.get("joinState"));
            assertEquals(2, listener.getInt("queued"));
            assertEquals("RETRY in 4 s", listener.getString("state"));
            JsonObject ib0 = json.getJsonArray("interfaces").getJsonObject(0);
            assertEquals("ib0", ib0.getString("name"));
            assertEquals(false, ib0.getBoolean("routerMode"));
            assertEquals(3, ib0.getJsonObject("counters").getInt("joins"));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.mcast("nosuch", "--json"));
        assertTrue(e.getMessage().contains("usage: ipoib:mcast [interface] [--json]"), e.getMessage());
    }
}
