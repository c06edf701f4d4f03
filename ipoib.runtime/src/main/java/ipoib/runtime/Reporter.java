package ipoib.runtime;

import java.util.Map;

/**
 * Where an engine's log lines and EventAdmin events go: the DS component that runs it (its
 * logger and EventAdmin), a test that records them, or nowhere (a benchmark). The link has its
 * own port, {@code LinkHooks}, which adds the frame handlers and the link listeners to this.
 */
public interface Reporter {
    /** Drops everything: benchmarks. */
    Reporter SILENT = new Reporter() {
        @Override
        public void info(String message) {
        }

        @Override
        public void warn(String message) {
        }

        @Override
        public void error(String message) {
        }

        @Override
        public void event(String topic, Map<String, Object> properties) {
        }
    };

    /** Detail for diagnosis (e.g. a malformed packet, rate-limited by the caller); dropped unless kept. */
    default void debug(String message) {
    }

    void info(String message);

    void warn(String message);

    void error(String message);

    /** Posts an event (EventAdmin topic and properties); must not block. */
    void event(String topic, Map<String, Object> properties);
}
