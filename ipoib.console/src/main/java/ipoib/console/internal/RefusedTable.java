package ipoib.console.internal;

import ipoib.runtime.ShownValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The configurations whose last update a component refused, as the IPoIB page, its JSON and the
 * status dump show them: the PID, the refused values, the values in force instead, and why.
 * Passwords are never shown.
 */
final class RefusedTable {
    private RefusedTable() {}

    static Table of(List<StandingRefusal> refusals) {
        List<List<Object>> rows = new ArrayList<>();
        for (StandingRefusal r : refusals) {
            rows.add(List.of(r.refusal().pid(), shown(r.refusedValues()), shown(r.inForceValues()), r.refusal().why()));
        }
        return new Table("ipoib-refused", "refused", Table.columns("pid", "PID", "refused", "Refused", "inForce", "In force",
                "why", "Why"), rows, "no refused configuration");
    }

    /** {@code property = value; ...}, a value not set as {@code (default)}. */
    private static String shown(Map<String, Object> values) {
        StringJoiner out = new StringJoiner("; ");
        values.forEach((k, v) -> out.add(k + " = " + (k.toLowerCase(Locale.ROOT).contains("password") ? "********"
                : v == null ? "(default)" : ShownValue.cut(v instanceof String[] a ? String.join("|", a) : String.valueOf(v)))));
        return out.toString();
    }
}
