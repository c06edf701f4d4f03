package ipoib.console.internal;

import ipoib.runtime.config.StoredProperties;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A PID's last refused configuration, next to the configuration its component kept running with
 * (both as the component was given them, defaults included, so that they compare property by
 * property).
 *
 * @param refusal the refusal
 * @param inForce what the component took last before it, or null while it is not known
 */
record StandingRefusal(VerdictBoard.Verdict refusal, Map<String, Object> inForce) {

    /** The refused values that are not the values in force, by property. */
    Map<String, Object> refusedValues() {
        Map<String, Object> out = new LinkedHashMap<>();
        refusal.properties().forEach((k, v) -> {
            if (inForce == null || !StoredProperties.sameValue(v, inForce.get(k))) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** The value in force of each refused property (null: not set, its default runs). */
    Map<String, Object> inForceValues() {
        Map<String, Object> out = new LinkedHashMap<>();
        refusedValues().keySet().forEach(k -> out.put(k, inForce == null ? null : inForce.get(k)));
        return out;
    }
}
