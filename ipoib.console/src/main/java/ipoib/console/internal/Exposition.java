package ipoib.console.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Prometheus text exposition format (version 0.0.4), written by hand: one HELP and TYPE line
 * per family, then its samples, label values escaped. Small enough not to need a library; the
 * Prometheus Java clients are not OSGi bundles and would bring their own registry model.
 */
final class Exposition {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private record Family(String help, String type, List<String> samples) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    void counter(String name, String help, long value, String... labels) {
        sample(name, help, "counter", value, labels);
    }

    void gauge(String name, String help, long value, String... labels) {
        sample(name, help, "gauge", value, labels);
    }

    private void sample(String name, String help, String type, long value, String... labels) {
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("metric name '" + name + "' is not valid");
        }
        Family family = families.computeIfAbsent(name, n -> new Family(help, type, new ArrayList<>()));
        if (!family.type().equals(type)) {
            throw new IllegalArgumentException("metric " + name + " is a " + family.type() + ", not a " + type);
        }
        StringBuilder line = new StringBuilder(name);
        if (labels.length > 0) {
            line.append('{');
            for (int i = 0; i + 1 < labels.length; i += 2) {
                if (i > 0) {
                    line.append(',');
                }
                line.append(labels[i]).append("=\"").append(escapeLabel(labels[i + 1])).append('"');
            }
            line.append('}');
        }
        family.samples().add(line.append(' ').append(value).toString());
    }

    /** A name part from a free-form counter name: lower case, [a-z0-9_], no repeated underscores. */
    static String snake(String text) {
        String s = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        if (s.endsWith("_total")) {
            s = s.substring(0, s.length() - "_total".length());
        }
        // promtool's lint reads name parts such as "ns" or "us" as abbreviated units.
        StringBuilder out = new StringBuilder();
        for (String part : s.split("_")) {
            if (!out.isEmpty()) {
                out.append('_');
            }
            out.append(SPELLED.getOrDefault(part, part));
        }
        return out.isEmpty() ? "unnamed" : out.toString();
    }

    private static final Map<String, String> SPELLED = Map.ofEntries(Map.entry("ns", "neighbor_solicitation"),
            Map.entry("us", "local"), Map.entry("ms", "millis"), Map.entry("sec", "second"), Map.entry("s", "second"),
            Map.entry("b", "byte"), Map.entry("kb", "kilobyte"), Map.entry("mb", "megabyte"), Map.entry("gb", "gigabyte"),
            Map.entry("tb", "terabyte"), Map.entry("pb", "petabyte"), Map.entry("m", "minute"), Map.entry("h", "hour"),
            Map.entry("d", "day"));

    static String escapeLabel(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    static String escapeHelp(String help) {
        return help.replace("\\", "\\\\").replace("\n", "\\n");
    }

    String text() {
        StringBuilder out = new StringBuilder();
        families.forEach((name, f) -> {
            out.append("# HELP ").append(name).append(' ').append(escapeHelp(f.help())).append('\n');
            out.append("# TYPE ").append(name).append(' ').append(f.type()).append('\n');
            f.samples().forEach(s -> out.append(s).append('\n'));
        });
        return out.toString();
    }
}
