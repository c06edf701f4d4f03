package ipoib.neighbour;

import java.util.Map;

/** Logging and event posting of the component that runs an engine. */
public interface Reporter {

    /** Detail for diagnosis (e.g. a malformed packet, rate-limited by the caller); dropped unless kept. */
    default void debug(String message) {
    }

    void info(String message);

    void warn(String message);

    void error(String message);

    /** Posts an event (EventAdmin topic and properties); must not block. */
    void event(String topic, Map<String, Object> properties);
}
