package ipoib.codec.iba;

/** Range checks for the setters of the header views: a value that does not fit its field is a programming error. */
final class Fields {
    private Fields() {}

    static int check(String field, int value, int bits) {
        if (value < 0 || value >= 1 << bits) {
            throw new IllegalArgumentException(field + " " + value + " does not fit " + bits + " bits (allowed 0.."
                    + ((1 << bits) - 1) + ")");
        }
        return value;
    }
}
