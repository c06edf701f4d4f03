package ipoib.mcast.internal;

import java.util.Map;

/** Where the manager's log lines and EventAdmin events go (the component's log and EventAdmin, or a test). */
public interface Reporter {

    /** Drops everything: benchmarks. */
    Reporter SILENT = new Reporter() {
        @Override public void postEvent(String topic, Map<String, Object> properties) { }
        @Override public void info(String message) { }
        @Override public void warn(String message) { }
    };

    void postEvent(String topic, Map<String, Object> properties);

    void info(String message);

    void warn(String message);
}
