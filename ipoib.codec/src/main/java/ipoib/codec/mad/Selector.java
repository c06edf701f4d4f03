package ipoib.codec.mad;

/**
 * The 2-bit selector that qualifies MTU, Rate and PacketLifeTime in PathRecord and MCMemberRecord
 * (IBA 1.2.1 §15.2.5.16): how the SA compares the value of a query with the values it has.
 */
public enum Selector {
    /** 0: greater than the value given. */
    GREATER_THAN(0),
    /** 1: less than the value given. */
    LESS_THAN(1),
    /** 2: exactly the value given (what SA answers and IPoIB creates use). */
    EXACTLY(2),
    /** 3: the largest available (the value given is ignored). */
    LARGEST_AVAILABLE(3);

    private static final Selector[] BY_CODE = values();
    private final int code;

    Selector(int code) {
        this.code = code;
    }

    /** The 2-bit wire value. */
    public int code() {
        return code;
    }

    /**
     * The selector of a 2-bit wire value.
     *
     * @throws IllegalArgumentException outside 0..3
     */
    public static Selector fromCode(int code) {
        if (code < 0 || code > 3) {
            throw new IllegalArgumentException("selector " + code + ": allowed 0..3");
        }
        return BY_CODE[code];
    }
}
