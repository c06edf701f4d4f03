package ipoib.codec.nd;

/** Range checks of the record constructors. */
final class NdChecks {
    private NdChecks() {}

    static void u32(String what, long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(what + " " + value + " is outside 0..4294967295");
        }
    }

    static void range(String what, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(what + " " + value + " is outside 0.." + max);
        }
    }
}
