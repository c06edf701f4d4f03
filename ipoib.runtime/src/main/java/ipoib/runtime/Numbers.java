package ipoib.runtime;

import java.math.BigInteger;

/**
 * Whole numbers typed by a user (shell arguments): decimal or {@code 0x} hexadecimal, with a
 * message that tells a number outside the range from a text that is no number at all, and names
 * the range in both cases.
 */
public final class Numbers {
    private Numbers() {}

    /**
     * The number in {@code text}.
     *
     * @param what what the number is, e.g. {@code "port"}
     * @throws IllegalArgumentException "{@code port '99999999999' is out of range: allowed 1..254}" or
     *     "{@code port 'x' is not a number: allowed 1..254}"
     */
    public static long parse(String what, String text, long min, long max) {
        String t = text == null ? "" : text.strip();
        BigInteger value;
        try {
            boolean negative = t.startsWith("-");
            String digits = negative ? t.substring(1) : t;
            value = digits.startsWith("0x") || digits.startsWith("0X")
                    ? new BigInteger(digits.substring(2), 16) : new BigInteger(digits, 10);
            if (negative) {
                value = value.negate();
            }
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a number: allowed " + min + ".." + max);
        }
        if (value.compareTo(BigInteger.valueOf(min)) < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new IllegalArgumentException(what + " '" + text + "' is out of range: allowed " + min + ".." + max);
        }
        return value.longValueExact();
    }
}
