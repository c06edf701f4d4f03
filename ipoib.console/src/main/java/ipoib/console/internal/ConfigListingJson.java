package ipoib.console.internal;

import ipoib.runtime.ConfigAttribute;
import ipoib.runtime.JsonText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.List;
import java.util.Map;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * {@code ipoib:config <pid> --json}: the records of the text listing, one per metatype property,
 * with typed values (numbers, booleans, arrays for multi-valued properties).
 */
final class ConfigListingJson {

    private ConfigListingJson() {}

    /**
     * @param factoryPid the factory of a factory configuration, or null
     * @param factory whether {@code pid} is a factory PID itself (its records then show the defaults)
     * @param configurations a factory PID's configurations
     * @param stored the stored properties, or null when none are (the defaults are in force)
     * @param refusal the PID's standing refusal, or null
     */
    static String of(String pid, String factoryPid, boolean factory, List<String> configurations,
            ConfigKnobs.Described described, Dictionary<String, Object> stored, StandingRefusal refusal) {
        Map<String, Object> refused = refusal == null ? Map.of() : refusal.refusedValues();
        List<Map<String, Object>> properties = new ArrayList<>();
        for (AttributeDefinition ad : described.ocd().getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            ConfigAttribute attribute = described.check() == null ? null : described.check().attribute(ad.getID());
            boolean hidden = ad.getType() == AttributeDefinition.PASSWORD;
            Object value = stored == null ? null : stored.get(ad.getID());
            Object defaultValue = defaultValue(ad);
            String[] options = ad.getOptionValues();
            properties.add(JsonText.record(
                    "name", ad.getID(),
                    "value", hidden ? null : value != null ? typed(value) : defaultValue,
                    "stored", value != null,
                    "type", ConfigKnobs.typeName(ad).replace(" ('|' between values)", ""),
                    "range", ConfigKnobs.allowed(ad, attribute),
                    "options", options == null ? List.of() : Arrays.asList(options),
                    "default", hidden ? null : defaultValue,
                    "description", ad.getDescription(),
                    "refused", hidden || !refused.containsKey(ad.getID()) ? null : typed(refused.get(ad.getID()))));
        }
        return JsonText.of(JsonText.record("pid", pid, "name", described.ocd().getName(), "factoryPid", factoryPid,
                "factory", factory, "configured", stored != null, "configurations", configurations,
                "refusal", refusal == null ? null : refusal.refusal().why(), "properties", properties));
    }

    private static Object typed(Object value) {
        return value instanceof Object[] values ? Arrays.asList(values) : value;
    }

    /** The metatype's default as its type (a list for a multi-valued property), null when empty. */
    private static Object defaultValue(AttributeDefinition ad) {
        String[] def = ad.getDefaultValue();
        if (def == null || String.join("|", def).isEmpty()) {
            return null;
        }
        if (ad.getCardinality() != 0) {
            return Arrays.asList(def);
        }
        try {
            return ConfigKnobs.convert(ad, def[0]);
        } catch (IllegalArgumentException notOfItsType) {
            return def[0];
        }
    }
}
