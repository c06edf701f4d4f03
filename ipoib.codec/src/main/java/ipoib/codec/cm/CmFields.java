package ipoib.codec.cm;

import ipoib.api.Gid;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/** Width checks and bit-field access shared by the CM message codecs (bit 0 is the octet's MSB, as IBA numbers them). */
final class CmFields {
    private CmFields() {}

    static int bits(String field, int value, int bits) {
        if (value < 0 || (bits < 32 && value >= 1 << bits)) {
            throw new IllegalArgumentException("CM " + field + " " + value + " does not fit " + bits + " bits (allowed 0.."
                    + ((1L << bits) - 1) + ")");
        }
        return value;
    }

    /** Refuses private data longer than the message's room for it. */
    static void fits(String message, CmPrivateData data, int room) {
        notNull(message + " private data", data);
        if (data.length() > room) {
            throw new IllegalArgumentException("CM " + message + " private data of " + data.length()
                    + " octets does not fit its " + room);
        }
    }

    static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException("CM " + field + " must not be null");
        }
        return value;
    }

    /** The {@code width} bits of an octet starting {@code from} bits below its MSB. */
    static int bitsOf(MemorySegment s, long offset, int from, int width) {
        return Wire.u8(s, offset) >>> (8 - from - width) & (1 << width) - 1;
    }

    /** An octet made of fields, each given as (value, width) from the MSB down; the rest are zero. */
    static int octet(int... valueWidthPairs) {
        int out = 0;
        int used = 0;
        for (int i = 0; i < valueWidthPairs.length; i += 2) {
            used += valueWidthPairs[i + 1];
            out |= valueWidthPairs[i] << (8 - used);
        }
        return out;
    }

    static Gid gid(MemorySegment s, long offset) {
        return new Gid(Wire.u64(s, offset), Wire.u64(s, offset + 8));
    }

    static void putGid(MemorySegment s, long offset, Gid gid) {
        Wire.put64(s, offset, gid.prefix());
        Wire.put64(s, offset + 8, gid.interfaceId());
    }
}
