package ipoib.codec.mad;

import ipoib.api.Gid;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/** Field checks of the record constructors and GID access shared by the attribute codecs. */
final class Check {
    private Check() {}

    static int bits(String field, int value, int bits) {
        if (value < 0 || (bits < 32 && value >= 1 << bits)) {
            throw new IllegalArgumentException(field + " " + value + " does not fit " + bits + " bits (allowed 0.."
                    + ((1L << bits) - 1) + ")");
        }
        return value;
    }

    static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }

    static Gid gid(MemorySegment s, long offset) {
        return new Gid(Wire.u64(s, offset), Wire.u64(s, offset + 8));
    }

    static void putGid(MemorySegment s, long offset, Gid gid) {
        Wire.put64(s, offset, gid.prefix());
        Wire.put64(s, offset + 8, gid.interfaceId());
    }
}
