package ipoib.codec.ipoib;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The 4-octet IPoIB encapsulation header of RFC 4391 §6 (Figure 3): a 16-bit EtherType followed
 * by 16 reserved bits.
 *
 * <p>The reserved field is written as zero and ignored on receive, as §6 requires. EtherTypes
 * other than those of {@link ipoib.api.link.EtherType} are carried unchanged: §6 lets other
 * protocols use the encapsulation, so deciding what to do with them is the caller's business.
 * No method allocates.
 */
public final class EncapsulationHeader {
    private EncapsulationHeader() {}

    /** Length of the header in octets. */
    public static final int LENGTH = 4;

    /**
     * Writes the header with the reserved field zero.
     *
     * @return {@link #LENGTH}
     * @throws IllegalArgumentException if {@code etherType} is outside 0..0xFFFF
     * @throws IndexOutOfBoundsException if the header does not fit in {@code buf} at {@code offset}
     */
    public static int write(MemorySegment buf, long offset, int etherType) {
        if (etherType < 0 || etherType > 0xFFFF) {
            throw new IllegalArgumentException(String.format("EtherType 0x%x does not fit 16 bits", etherType));
        }
        Wire.check(buf, offset, LENGTH, "IPoIB encapsulation header");
        Wire.put32(buf, offset, etherType << 16);
        return LENGTH;
    }

    /**
     * The EtherType of the header at {@code offset}; the reserved field is not looked at.
     *
     * @throws DecodeException if fewer than 4 octets remain at {@code offset}
     */
    public static int etherType(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, "IPoIB encapsulation header");
        return Wire.u16(buf, offset);
    }
}
