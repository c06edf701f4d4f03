package ipoib.neighbour.testing;

import ipoib.runtime.Reporter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A reporter that keeps every line ("LEVEL message") and event topic. */
public final class RecordingReporter implements Reporter {
    public final List<String> lines = new CopyOnWriteArrayList<>();
    public final List<String> events = new CopyOnWriteArrayList<>();

    @Override public void debug(String message) { lines.add("DEBUG " + message); }
    @Override public void info(String message) { lines.add("INFO " + message); }
    @Override public void warn(String message) { lines.add("WARN " + message); }
    @Override public void error(String message) { lines.add("ERROR " + message); }
    @Override public void event(String topic, Map<String, Object> properties) { events.add(topic); }
}
