package ipoib.api;

import java.util.Locale;

/** Shared parsing and checking helpers for the value types; not part of the API. */
final class Values {
    private Values() {}

    static IllegalArgumentException invalid(String what, Object value, String allowed) {
        return new IllegalArgumentException("invalid " + what + " '" + value + "': " + allowed);
    }

    static long checkRange(String what, long value, long min, long max) {
        if (value < min || value > max) {
            throw invalid(what, value, String.format(Locale.ROOT, "allowed 0x%X..0x%X (%d..%d)", min, max, min, max));
        }
        return value;
    }

    static String requireText(String what, String text) {
        if (text == null) {
            throw new IllegalArgumentException(what + " text must not be null");
        }
        return text.strip();
    }

    /**
     * Parses an unsigned number written in decimal or with a 0x prefix in hexadecimal.
     */
    static long parseUnsigned(String what, String text, long max, String allowed) {
        String t = requireText(what, text);
        long value;
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                String digits = t.substring(2);
                if (digits.isEmpty() || digits.length() > 16 || digits.startsWith("+") || digits.startsWith("-")) {
                    throw invalid(what, text, allowed);
                }
                value = Long.parseUnsignedLong(digits, 16);
            } else {
                if (t.isEmpty() || !Character.isDigit(t.charAt(0))) {
                    throw invalid(what, text, allowed);
                }
                value = Long.parseLong(t);
            }
        } catch (NumberFormatException e) {
            throw invalid(what, text, allowed);
        }
        if (value < 0 || value > max) {
            throw invalid(what, text, allowed);
        }
        return value;
    }

    static int hexDigit(String what, String text, char c, String allowed) {
        int d = Character.digit(c, 16);
        if (d < 0 || c > 'f') {
            throw invalid(what, text, "'" + c + "' is not a hexadecimal digit; " + allowed);
        }
        return d;
    }
}
