package ipoib.api.metrics;

import java.util.Locale;
import java.util.Map;

/** Metric name parts made from the free-form names of a component's counters. */
public final class MetricNames {
    private MetricNames() {}

    /**
     * A name part from a free-form counter name: lower case, {@code [a-z0-9_]}, no leading, trailing
     * or repeated underscores, without a trailing {@code _total}; parts that {@code promtool check
     * metrics} reads as abbreviated units ({@code ns}, {@code us}, {@code ms}, {@code s}, {@code b},
     * ...) spelled out. {@code "unnamed"} when nothing is left.
     */
    public static String part(String text) {
        String s = text.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        if (s.endsWith("_total")) {
            s = s.substring(0, s.length() - "_total".length());
        }
        StringBuilder out = new StringBuilder();
        for (String part : s.split("_")) {
            if (part.isEmpty()) {
                continue;
            }
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
}
