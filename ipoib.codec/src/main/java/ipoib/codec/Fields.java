package ipoib.codec;

import ipoib.api.Gid;
import java.lang.foreign.MemorySegment;

/**
 * Checks of the fields an encoder is given (each names the field, its value and what is allowed)
 * and GID access, shared by the management codecs (SA, MAD, CM).
 *
 * @since 1.1
 */
public final class Fields {
    private Fields() {}

    /**
     * @return {@code value}, when it fits an unsigned field of {@code bits} bits
     * @throws IllegalArgumentException naming the field, the value and the range, when it does not
     */
    public static int bits(String field, int value, int bits) {
        if (value < 0 || (bits < 32 && value >= 1 << bits)) {
            throw new IllegalArgumentException(field + " " + value + " does not fit " + bits + " bits (allowed 0.."
                    + ((1L << bits) - 1) + ")");
        }
        return value;
    }

    /**
     * @return {@code value}, when it is not null
     * @throws IllegalArgumentException naming the field, when it is
     */
    public static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }

    /**
     * The 16-octet GID at {@code offset}.
     *
     * @throws DecodeException when the segment ends before it
     */
    public static Gid gid(MemorySegment s, long offset) throws DecodeException {
        Wire.require(s, offset, 16, "GID");
        return new Gid(Wire.u64(s, offset), Wire.u64(s, offset + 8));
    }

    /** Writes a GID as 16 octets at {@code offset}. */
    public static void putGid(MemorySegment s, long offset, Gid gid) {
        Wire.put64(s, offset, gid.prefix());
        Wire.put64(s, offset + 8, gid.interfaceId());
    }
}
