package ipoib.api;

/**
 * A 64-bit globally unique identifier (an EUI-64) of a node or port (IBA 4.1).
 *
 * <p>The text form is the one Linux shows in sysfs, four groups of four hex digits:
 * {@code 0002:c903:0000:0001}. {@link #parse} also accepts {@code 0x0002c90300000001} (ibstat)
 * and the EUI-64 octet form {@code 00:02:c9:03:00:00:00:01}.
 *
 * @param value the 64 bits
 */
public record Guid(long value) {

    /** A GUID from its 64-bit value. */
    public static Guid of(long value) {
        return new Guid(value);
    }

    /**
     * Parses one of the three text forms described above.
     *
     * @throws IllegalArgumentException naming the text when it is in none of them
     */
    public static Guid parse(String text) {
        String t = Values.requireText("GUID", text);
        final String allowed = "expected 0002:c903:0000:0001, 0x0002c90300000001 or 00:02:c9:03:00:00:00:01";
        String digits;
        if (t.startsWith("0x") || t.startsWith("0X")) {
            digits = t.substring(2);
        } else if (t.length() == 19 && t.charAt(4) == ':' && t.charAt(9) == ':' && t.charAt(14) == ':') {
            digits = t.replace(":", "");
        } else if (t.length() == 23 && t.chars().filter(c -> c == ':').count() == 7) {
            for (int i = 2; i < 23; i += 3) {
                if (t.charAt(i) != ':') {
                    throw Values.invalid("GUID", text, allowed);
                }
            }
            digits = t.replace(":", "");
        } else {
            throw Values.invalid("GUID", text, allowed);
        }
        if (digits.length() != 16) {
            throw Values.invalid("GUID", text, allowed);
        }
        long v = 0;
        for (int i = 0; i < 16; i++) {
            v = (v << 4) | Values.hexDigit("GUID", text, digits.charAt(i), allowed);
        }
        return new Guid(v);
    }

    /** The sysfs form {@code 0002:c903:0000:0001}. */
    @Override
    public String toString() {
        String hex = String.format("%016x", value);
        return hex.substring(0, 4) + ':' + hex.substring(4, 8) + ':' + hex.substring(8, 12) + ':' + hex.substring(12);
    }
}
