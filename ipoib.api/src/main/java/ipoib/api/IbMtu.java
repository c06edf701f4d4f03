package ipoib.api;

/**
 * An InfiniBand MTU (IBA 9.6, the 4-bit MTU enumeration of PathRecord and MCMemberRecord).
 *
 * <p>The IPoIB link MTU is the IB MTU minus the 4-octet encapsulation header (RFC 4391 §5):
 * 2044 on a 2048 fabric.
 */
public enum IbMtu {
    MTU_256(1, 256),
    MTU_512(2, 512),
    MTU_1024(3, 1024),
    MTU_2048(4, 2048),
    MTU_4096(5, 4096);

    /** Size of the IPoIB encapsulation header subtracted from the IB MTU (RFC 4391 §6). */
    public static final int IPOIB_HEADER_LENGTH = 4;

    private static final IbMtu[] BY_CODE = {null, MTU_256, MTU_512, MTU_1024, MTU_2048, MTU_4096};
    private final int code;
    private final int bytes;

    IbMtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** The IBA enumeration value, 1 (256) .. 5 (4096). */
    public int code() {
        return code;
    }

    /** The MTU in octets. */
    public int bytes() {
        return bytes;
    }

    /** The IPoIB link MTU: {@link #bytes()} minus the 4-octet header. */
    public int ipoibMtu() {
        return bytes - IPOIB_HEADER_LENGTH;
    }

    /**
     * The MTU with this IBA code.
     *
     * @throws IllegalArgumentException for codes other than 1..5
     */
    public static IbMtu fromCode(int code) {
        if (code < 1 || code > 5) {
            throw Values.invalid("IB MTU code", code, "allowed 1 (256), 2 (512), 3 (1024), 4 (2048), 5 (4096)");
        }
        return BY_CODE[code];
    }

    /**
     * The MTU of this many octets.
     *
     * @throws IllegalArgumentException unless {@code bytes} is 256, 512, 1024, 2048 or 4096
     */
    public static IbMtu fromBytes(int bytes) {
        for (IbMtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw Values.invalid("IB MTU", bytes, "allowed 256, 512, 1024, 2048, 4096");
    }

    /** Parses {@code 2048} (octets). */
    public static IbMtu parse(String text) {
        return fromBytes((int) Values.parseUnsigned("IB MTU", text, 4096, "allowed 256, 512, 1024, 2048, 4096"));
    }

    @Override
    public String toString() {
        return Integer.toString(bytes);
    }
}
