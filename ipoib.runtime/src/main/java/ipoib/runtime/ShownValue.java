package ipoib.runtime;

import java.lang.reflect.Array;

/**
 * A configuration value as messages show it: texts quoted, arrays joined with '|', and anything
 * longer than {@value #MAX} characters cut with its length, so that a 70 000-character value
 * makes one readable log line, not a page.
 */
public final class ShownValue {
    /** Characters of a value shown before it is cut. */
    public static final int MAX = 80;

    private ShownValue() {}

    /** {@code 'text'}, {@code 42}, {@code 'a|b'}, or {@code 'aaaa…(70000 chars)'}. */
    public static String of(Object value) {
        if (value == null) {
            return "(none)";
        }
        if (value.getClass().isArray()) {
            StringBuilder joined = new StringBuilder();
            for (int i = 0; i < Array.getLength(value); i++) {
                joined.append(i == 0 ? "" : "|").append(Array.get(value, i));
            }
            return "'" + cut(joined.toString()) + "'";
        }
        return value instanceof CharSequence s ? "'" + cut(s.toString()) + "'" : cut(String.valueOf(value));
    }

    /** The text, or its first {@value #MAX} characters followed by {@code …(N chars)}. */
    public static String cut(String text) {
        return text.length() <= MAX ? text : text.substring(0, MAX) + "…(" + text.length() + " chars)";
    }
}
