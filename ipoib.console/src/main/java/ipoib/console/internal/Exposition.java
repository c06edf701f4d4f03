package ipoib.console.internal;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: one HELP and TYPE line
 * per family, then its samples, label values escaped. Small enough not to need a library; the
 * Prometheus Java clients are not OSGi bundles and would bring their own registry model.
 */
final class Exposition implements MetricSink {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private record Family(Metric metric, List<String> samples) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    @Override
    public void sample(Metric metric, long value, String... labelValues) {
        if (labelValues.length != metric.labelNames().size()) {
            throw new IllegalArgumentException("metric " + metric.name() + " takes the labels " + metric.labelNames()
                    + ", not " + labelValues.length + " values");
        }
        Family family = families.computeIfAbsent(metric.name(), n -> new Family(metric, new ArrayList<>()));
        if (!family.metric().equals(metric)) {
            throw new IllegalArgumentException("metric " + metric.name() + " is a " + family.metric().type().text()
                    + " with the labels " + family.metric().labelNames() + ", not a " + metric.type().text()
                    + " with " + metric.labelNames() + " (or its help differs)");
        }
        StringBuilder line = new StringBuilder(metric.name());
        if (labelValues.length > 0) {
            line.append('{');
            for (int i = 0; i < labelValues.length; i++) {
                if (i > 0) {
                    line.append(',');
                }
                line.append(metric.labelNames().get(i)).append("=\"").append(escapeLabel(labelValues[i])).append('"');
            }
            line.append('}');
        }
        family.samples().add(line.append(' ').append(value).toString());
    }

    /** True when every family of {@code other} is new here or written the same way. */
    boolean accepts(Exposition other) {
        for (Family f : other.families.values()) {
            Family mine = families.get(f.metric().name());
            if (mine != null && !mine.metric().equals(f.metric())) {
                return false;
            }
        }
        return true;
    }

    static String escapeLabel(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    static String escapeHelp(String help) {
        return help.replace("\\", "\\\\").replace("\n", "\\n");
    }

    String text() {
        StringBuilder out = new StringBuilder();
        families.forEach((name, f) -> {
            out.append("# HELP ").append(name).append(' ').append(escapeHelp(f.metric().help())).append('\n');
            out.append("# TYPE ").append(name).append(' ').append(f.metric().type().text()).append('\n');
            f.samples().forEach(s -> out.append(s).append('\n'));
        });
        return out.toString();
    }
}
