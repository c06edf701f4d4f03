package ipoib.neighbour;

import java.util.Locale;

/** Configuration checks that name the PID, the property, the value and what is allowed. */
public final class Checks {
    private Checks() {}

    /** The value, or an exception naming it when it is outside {@code min..max}. */
    public static long range(String pid, String property, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException("invalid " + pid + " property '" + property + "' value " + value
                    + ": allowed " + min + ".." + max);
        }
        return value;
    }

    /** The value (lower case), or an exception naming it when it is none of {@code allowed}. */
    public static String choice(String pid, String property, String value, String... allowed) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(v)) {
                return v;
            }
        }
        throw new IllegalArgumentException("invalid " + pid + " property '" + property + "' value '" + value
                + "': allowed " + String.join(", ", allowed));
    }
}
