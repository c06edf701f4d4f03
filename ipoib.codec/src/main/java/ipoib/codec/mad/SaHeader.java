package ipoib.codec.mad;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The subnet administration class header (IBA 1.2.1 §15.2.1.1), octets 36-55 of an SA MAD,
 * after the common MAD header and the RMPP header.
 *
 * <pre>
 * 0-7: SM_Key      8-9: AttributeOffset (in 8-octet words)      10-11: reserved
 * 12-19: ComponentMask (bit n selects record component n; see the CM_ constants of the records)
 * </pre>
 *
 * @param smKey all 64 bits; 0 for untrusted requests
 * @param attributeOffset 16 bits: the record stride of GetTable answers, in 8-octet words
 * @param componentMask all 64 bits
 */
public record SaHeader(long smKey, int attributeOffset, long componentMask) {

    /** Length of the SA header in octets. */
    public static final int LENGTH = 20;

    /**
     * @throws IllegalArgumentException when AttributeOffset does not fit 16 bits
     */
    public SaHeader {
        Fields.bits("SA AttributeOffset", attributeOffset, 16);
    }

    /** The AttributeOffset of records of this many octets: their length in 8-octet words, rounded up. */
    public static int attributeOffsetOf(int recordLength) {
        return (recordLength + 7) / 8;
    }

    /** Writes the 20 octets at {@code offset}, the reserved octets zero. */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "SA header");
        Wire.put64(segment, offset, smKey);
        Wire.put16(segment, offset + 8, attributeOffset);
        Wire.put16(segment, offset + 10, 0);
        Wire.put64(segment, offset + 12, componentMask);
    }

    /**
     * Reads the 20 octets at {@code offset}.
     *
     * @throws DecodeException when fewer than 20 octets remain ("SA header")
     */
    public static SaHeader decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "SA header");
        return new SaHeader(Wire.u64(segment, offset), Wire.u16(segment, offset + 8), Wire.u64(segment, offset + 12));
    }
}
