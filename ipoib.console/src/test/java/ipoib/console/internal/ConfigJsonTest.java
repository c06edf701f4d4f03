package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/** {@code ipoib:config <pid> --json}, read by a real JSON parser: the shape docs/JSON.md documents. */
class ConfigJsonTest {

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Function<String, Object> answers) {
        return (T) Proxy.newProxyInstance(ConfigJsonTest.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> answers.apply(method.getName()));
    }

    private static AttributeDefinition attribute(String id, int type, int cardinality, String[] defaults, String[] options,
            String description) {
        return proxy(AttributeDefinition.class, m -> switch (m) {
            case "getID" -> id;
            case "getType" -> type;
            case "getCardinality" -> cardinality;
            case "getDefaultValue" -> defaults;
            case "getOptionValues" -> options;
            case "getDescription" -> description;
            default -> null;
        });
    }

    private static final ObjectClassDefinition OCD = proxy(ObjectClassDefinition.class, m -> switch (m) {
        case "getName" -> "IPoIB multicast";
        case "getID" -> "ipoib.mcast";
        case "getAttributeDefinitions" -> new AttributeDefinition[] {
            attribute("pendingFramesPerGroup", AttributeDefinition.INTEGER, 0, new String[] {"64"}, null, "frames held"),
            attribute("auditSeconds", AttributeDefinition.INTEGER, 0, new String[] {"60"}, null, "audit period"),
            attribute("mode", AttributeDefinition.STRING, 0, new String[] {"datagram"},
                    new String[] {"datagram", "connected"}, "the mode"),
            attribute("partitions", AttributeDefinition.STRING, -10, new String[] {"a", "b"}, null, null),
            attribute("password", AttributeDefinition.PASSWORD, 0, new String[] {"secret"}, null, "hidden")};
        default -> null;
    });

    /** ipoib:config over one bundle describing {@code ipoib.mcast}, stored as {@code stored} (null: not configured). */
    private static ConsoleCommands commands(Hashtable<String, Object> stored) {
        return commands(stored, new VerdictBoard());
    }

    private static ConsoleCommands commands(Hashtable<String, Object> stored, VerdictBoard verdicts) {
        MetaTypeInformation info = proxy(MetaTypeInformation.class, m -> switch (m) {
            case "getPids" -> new String[] {"ipoib.mcast"};
            case "getFactoryPids" -> new String[0];
            case "getObjectClassDefinition" -> OCD;
            default -> null;
        });
        Bundle bundle = proxy(Bundle.class, m -> m.equals("getSymbolicName") ? "ipoib.mcast" : null);
        BundleContext context = proxy(BundleContext.class, m -> m.equals("getBundles") ? new Bundle[] {bundle} : null);
        MetaTypeService metaType = proxy(MetaTypeService.class, m -> m.equals("getMetaTypeInformation") ? info : null);
        Configuration configuration = proxy(Configuration.class, m -> switch (m) {
            case "getProperties" -> stored;
            case "getPid" -> "ipoib.mcast";
            default -> null;
        });
        ConfigurationAdmin admin = proxy(ConfigurationAdmin.class, m -> m.equals("listConfigurations") && stored != null
                ? new Configuration[] {configuration} : null);
        return new ConsoleCommands(new EventRing(), new ConfigKnobs(context, admin, metaType, verdicts));
    }

    private static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private static JsonObject property(JsonObject json, String name) {
        return json.getJsonArray("properties").stream().map(JsonValue::asJsonObject)
                .filter(p -> p.getString("name").equals(name)).findFirst().orElseThrow();
    }

    @Test
    void eachPropertyWithItsValueInForceTypeRangeAndDefault() throws Exception {
        Hashtable<String, Object> stored = new Hashtable<>(Map.of("service.pid", "ipoib.mcast", "auditSeconds", 120,
                "partitions", new String[] {"x", "y"}, "password", "not shown"));
        JsonObject json = parse(commands(stored).config("ipoib.mcast", "--json"));
        assertEquals(Set.of("pid", "name", "factoryPid", "factory", "configured", "configurations", "refusal", "properties"),
                json.keySet());
        assertEquals("ipoib.mcast", json.getString("pid"));
        assertEquals("IPoIB multicast", json.getString("name"));
        assertTrue(json.isNull("factoryPid"));
        assertFalse(json.getBoolean("factory"));
        assertTrue(json.getBoolean("configured"));
        assertEquals(5, json.getJsonArray("properties").size());

        JsonObject audit = property(json, "auditSeconds");
        assertEquals(Set.of("name", "value", "stored", "type", "range", "options", "default", "description", "refused"),
                audit.keySet());
        assertTrue(json.isNull("refusal"));
        assertTrue(audit.isNull("refused"));
        assertEquals(120, audit.getInt("value"));
        assertTrue(audit.getBoolean("stored"));
        assertEquals("Integer", audit.getString("type"));
        assertEquals(60, audit.getInt("default"));
        assertEquals("audit period", audit.getString("description"));

        JsonObject frames = property(json, "pendingFramesPerGroup");
        assertEquals(64, frames.getInt("value"), "not stored: the default is in force");
        assertFalse(frames.getBoolean("stored"));

        JsonObject mode = property(json, "mode");
        assertEquals("datagram", mode.getString("value"));
        assertEquals("one of datagram, connected", mode.getString("range"));
        assertEquals(List.of("datagram", "connected"), mode.getJsonArray("options").getValuesAs(JsonValue::toString)
                .stream().map(s -> s.replace("\"", "")).toList());

        JsonObject partitions = property(json, "partitions");
        assertEquals("String[]", partitions.getString("type"));
        JsonArray values = partitions.getJsonArray("value");
        assertEquals("x", values.getString(0));
        assertEquals("y", values.getString(1));
        assertEquals("a", partitions.getJsonArray("default").getString(0));
        assertTrue(partitions.isNull("description"));

        JsonObject password = property(json, "password");
        assertTrue(password.isNull("value"), "a password is never shown");
        assertTrue(password.isNull("default"));
        assertTrue(password.getBoolean("stored"));
        assertFalse(json.toString().contains("not shown"));
        assertFalse(json.toString().contains("secret"));
    }

    @Test
    void notConfiguredTheDefaultsAreInForce() throws Exception {
        JsonObject json = parse(commands(null).config("--json", "ipoib.mcast"));
        assertFalse(json.getBoolean("configured"));
        assertEquals(64, property(json, "pendingFramesPerGroup").getInt("value"));
        assertFalse(property(json, "auditSeconds").getBoolean("stored"));
    }

    @Test
    void settingValuesRefusesJsonWithTheUsage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> commands(null).config("ipoib.mcast", "auditSeconds", "30", "--json"));
        assertTrue(e.getMessage().contains("usage: ipoib:config <pid> [property value ...] | ipoib:config <pid> --json"),
                e.getMessage());
    }

    @Test
    void anUnknownPidIsRefusedAsWithoutJson() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> commands(null).config("ipoib.nothing", "--json"));
        assertTrue(e.getMessage().startsWith("no metatype describes PID 'ipoib.nothing'; described PIDs: ipoib.mcast"),
                e.getMessage());
    }

    /**
     * A value stored past {@code ipoib:config} (the Web Console's form, {@code cm:}) and refused by
     * the component: the listing shows the values in force, and which value was refused and why.
     */
    @Test
    void aRefusedUpdateIsListedNextToTheValuesInForce() throws Exception {
        VerdictBoard verdicts = new VerdictBoard();
        Map<String, Object> inForce = Map.of("auditSeconds", 120, "pendingFramesPerGroup", 64, "mode", "datagram");
        verdicts.accepted("ipoib.mcast", inForce);
        verdicts.refused("ipoib.mcast", Map.of("auditSeconds", 0, "pendingFramesPerGroup", 64, "mode", "datagram"),
                "invalid ipoib.mcast property 'auditSeconds' value 0: allowed 1..3600", Map.of("auditSeconds", 120));
        verdicts.accepted("ipoib.mcast", inForce); // the configuration in force, stored again
        Hashtable<String, Object> stored = new Hashtable<>(Map.of("service.pid", "ipoib.mcast", "auditSeconds", 120));

        JsonObject json = parse(commands(stored, verdicts).config("ipoib.mcast", "--json"));
        assertEquals("invalid ipoib.mcast property 'auditSeconds' value 0: allowed 1..3600", json.getString("refusal"));
        assertEquals(120, property(json, "auditSeconds").getInt("value"));
        assertEquals(0, property(json, "auditSeconds").getInt("refused"));
        assertTrue(property(json, "pendingFramesPerGroup").isNull("refused"), "not refused: the same as in force");

        String text = commands(stored, verdicts).config("ipoib.mcast");
        assertTrue(text.contains("last update refused: invalid ipoib.mcast property 'auditSeconds' value 0: allowed 1..3600"),
                text);
        String audit = text.lines().filter(l -> l.strip().startsWith("auditSeconds")).findFirst().orElseThrow();
        assertTrue(audit.contains("= 120") && audit.endsWith("refused 0"), audit);

        verdicts.accepted("ipoib.mcast", Map.of("auditSeconds", 30, "pendingFramesPerGroup", 64, "mode", "datagram"));
        assertTrue(parse(commands(stored, verdicts).config("ipoib.mcast", "--json")).isNull("refusal"),
                "another configuration taken: the refusal no longer stands");
    }
}
