package ipoib.neighbour;

import java.util.Map;

/** Logging and event posting of the component that runs an engine. */
public interface Reporter {

    void info(String message);

    void warn(String message);

    void error(String message);

    /** Posts an event (EventAdmin topic and properties); must not block. */
    void event(String topic, Map<String, Object> properties);
}
