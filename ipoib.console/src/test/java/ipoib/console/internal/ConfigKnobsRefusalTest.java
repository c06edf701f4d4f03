package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.ObjectClassDefinition;

/** What ipoib:config says when the component refuses values after they were stored. */
class ConfigKnobsRefusalTest {

    private static AttributeDefinition attribute(String id, int type) {
        return (AttributeDefinition) Proxy.newProxyInstance(ConfigKnobsRefusalTest.class.getClassLoader(),
                new Class<?>[] {AttributeDefinition.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getID" -> id;
                    case "getType" -> type;
                    case "getCardinality" -> 0;
                    default -> null;
                });
    }

    private static final ObjectClassDefinition OCD = (ObjectClassDefinition) Proxy.newProxyInstance(
            ConfigKnobsRefusalTest.class.getClassLoader(), new Class<?>[] {ObjectClassDefinition.class},
            (proxy, method, args) -> method.getName().equals("getAttributeDefinitions")
                    ? new AttributeDefinition[] {attribute("name", AttributeDefinition.STRING),
                        attribute("port", AttributeDefinition.INTEGER),
                        attribute("password", AttributeDefinition.PASSWORD)}
                    : null);

    private static final ConfigKnobs.Described DESCRIBED = new ConfigKnobs.Described(OCD, null);

    @Test
    void aRefusalSaysWhyAndEachValueInForce() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("name", "shared");
        values.put("port", 2);
        VerdictBoard.Verdict refused = new VerdictBoard.Verdict(0, "ipoib.link~b", Map.of("name", "shared", "port", 2),
                "an interface named 'shared' exists", Map.of("port", 1));
        assertEquals("ipoib.link~b: refused by its component: an interface named 'shared' exists; in force: "
                + "name = (default); port = 1", ConfigKnobs.refusedBy("ipoib.link~b", DESCRIBED, values, refused));
    }

    @Test
    void aPasswordInForceIsNotShown() {
        VerdictBoard.Verdict refused = new VerdictBoard.Verdict(0, "ipoib.console", Map.of("password", "new"),
                "refused", Map.of("password", "old"));
        assertEquals("ipoib.console: refused by its component: refused; in force: password = ********",
                ConfigKnobs.refusedBy("ipoib.console", DESCRIBED, Map.of("password", "new"), refused));
    }

    @Test
    void aRefusedFirstConfigurationIsDeleted() {
        VerdictBoard.Verdict refused = new VerdictBoard.Verdict(0, "ipoib.link~c", Map.of("port", 9), "no port 9", null);
        assertEquals("ipoib.link~c: refused by its component: no port 9; the configuration was deleted (none was in force "
                + "before it)", ConfigKnobs.refusedBy("ipoib.link~c", DESCRIBED, Map.of("port", 9), refused));
    }

    /** A value of the wrong type is refused in words, not with a Java type name. */
    @Test
    void aValueOfTheWrongTypeIsNamedInWords() {
        assertEquals("a whole number", ConfigKnobs.expected(attribute("port", AttributeDefinition.INTEGER)));
        assertEquals("a whole number", ConfigKnobs.expected(attribute("bytes", AttributeDefinition.LONG)));
        assertEquals("a boolean", ConfigKnobs.expected(attribute("on", AttributeDefinition.BOOLEAN)));
    }
}
