package ipoib.link.internal;

import ipoib.runtime.config.StoredProperties;
import java.util.HashMap;
import java.util.Map;

/**
 * The properties each interface configuration's component handled last (ran, or refused), by
 * PID. Configuration Admin delivers an update later than it stores it; a stored configuration
 * that differs from what its component handled is a change that has not taken effect, which
 * {@code ipoib:await} waits for (after {@code ipoib:mode}, the switch itself).
 */
public final class HandledConfigurations {
    private final Map<String, Map<String, Object>> handled = new HashMap<>();

    /** The component handled these properties (as DS passed them). */
    synchronized void handled(Map<String, ?> properties) {
        Object pid = properties.get("service.pid");
        if (pid != null) {
            handled.put(pid.toString(), StoredProperties.of(properties));
        }
    }

    /** The configuration is gone. */
    synchronized void forget(Object pid) {
        handled.remove(String.valueOf(pid));
    }

    /** Whether the stored properties of {@code pid} are not yet the ones its component handled. */
    public synchronized boolean pending(String pid, Map<String, Object> stored) {
        Map<String, Object> last = handled.get(pid);
        return last == null || !StoredProperties.within(stored, last);
    }
}
