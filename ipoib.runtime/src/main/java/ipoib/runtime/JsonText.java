package ipoib.runtime;

import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JSON of the shell's {@code --json} listings (RFC 8259): maps (in their order) become
 * objects, collections arrays, numbers and booleans themselves, null null, and anything else
 * its {@code toString()} as a string. A listing is one object holding its records' arrays.
 */
public final class JsonText {
    /** The option the listing commands take. */
    public static final String FLAG = "--json";

    private JsonText() {}

    /** Whether {@code args} hold {@value #FLAG}. */
    public static boolean wanted(String... args) {
        return Arrays.asList(args).contains(FLAG);
    }

    /** {@code args} without {@value #FLAG}. */
    public static String[] withoutFlag(String... args) {
        return Arrays.stream(args).filter(a -> !a.equals(FLAG)).toArray(String[]::new);
    }

    /** A record: its fields from {@code namesAndValues} (name, value, name, value, ...), in that order. */
    public static Map<String, Object> record(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values come in pairs");
        }
        Map<String, Object> record = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            record.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return record;
    }

    /** {@code value} as JSON text, on one line. */
    public static String of(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value) {
        switch (value) {
            case null -> out.append("null");
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    string(out, String.valueOf(e.getKey()));
                    out.append(':');
                    write(out, e.getValue());
                }
                out.append('}');
            }
            case Collection<?> list -> {
                out.append('[');
                boolean first = true;
                for (Object item : list) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    write(out, item);
                }
                out.append(']');
            }
            case Boolean b -> out.append(b);
            case Byte n -> out.append(n);
            case Short n -> out.append(n);
            case Integer n -> out.append(n);
            case Long n -> out.append(n);
            // JSON has no NaN or infinity.
            case Number n when Double.isFinite(n.doubleValue()) -> out.append(n.doubleValue());
            case Number n -> out.append("null");
            default -> string(out, value.toString());
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
