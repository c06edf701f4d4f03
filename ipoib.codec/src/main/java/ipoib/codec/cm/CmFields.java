package ipoib.codec.cm;

import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/** Private-data room and bit-field access shared by the CM message codecs (bit 0 is the octet's MSB, as IBA numbers them). */
final class CmFields {
    private CmFields() {}

    /** Refuses private data longer than the message's room for it. */
    static void fits(String message, CmPrivateData data, int room) {
        Fields.notNull("CM " + message + " private data", data);
        if (data.length() > room) {
            throw new IllegalArgumentException("CM " + message + " private data of " + data.length()
                    + " octets does not fit its " + room);
        }
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
}
