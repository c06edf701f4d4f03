package ipoib.codec.mad;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The RMPP header (IBA 1.2.1 §13.6.2.1) that follows the common MAD header in every SA MAD
 * (octets 24-35). All zero when RMPP is not active, as in single-MAD requests and answers.
 *
 * <pre>
 * 0: RMPPVersion  1: RMPPType  2: RRespTime (5) | RMPPFlags (3)  3: RMPPStatus
 * 4-7: Data1 (SegmentNumber of DATA)     8-11: Data2 (PayloadLength / NewWindowLast)
 * </pre>
 *
 * @param version 8 bits; 1 when RMPP is used
 * @param type 8 bits: {@link #TYPE_DATA}, {@link #TYPE_ACK}, {@link #TYPE_STOP}, {@link #TYPE_ABORT}
 * @param responseTime 5 bits
 * @param flags 3 bits: {@link #FLAG_ACTIVE}, {@link #FLAG_FIRST}, {@link #FLAG_LAST}
 * @param status 8 bits
 * @param data1 all 32 bits
 * @param data2 all 32 bits
 */
public record RmppHeader(int version, int type, int responseTime, int flags, int status, int data1, int data2) {

    /** Length of the RMPP header in octets. */
    public static final int LENGTH = 12;
    public static final int VERSION = 1;
    public static final int TYPE_DATA = 1;
    public static final int TYPE_ACK = 2;
    public static final int TYPE_STOP = 3;
    public static final int TYPE_ABORT = 4;
    public static final int FLAG_ACTIVE = 0x1;
    public static final int FLAG_FIRST = 0x2;
    public static final int FLAG_LAST = 0x4;
    /** No RMPP: all fields zero. */
    public static final RmppHeader NONE = new RmppHeader(0, 0, 0, 0, 0, 0, 0);

    /**
     * @throws IllegalArgumentException when a field does not fit its width
     */
    public RmppHeader {
        Check.bits("RMPPVersion", version, 8);
        Check.bits("RMPPType", type, 8);
        Check.bits("RRespTime", responseTime, 5);
        Check.bits("RMPPFlags", flags, 3);
        Check.bits("RMPPStatus", status, 8);
    }

    /** Whether the Active flag is set. */
    public boolean active() {
        return (flags & FLAG_ACTIVE) != 0;
    }

    /** Writes the 12 octets at {@code offset}. */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "RMPP header");
        Wire.put8(segment, offset, version);
        Wire.put8(segment, offset + 1, type);
        Wire.put8(segment, offset + 2, responseTime << 3 | flags);
        Wire.put8(segment, offset + 3, status);
        Wire.put32(segment, offset + 4, data1);
        Wire.put32(segment, offset + 8, data2);
    }

    /**
     * Reads the 12 octets at {@code offset}.
     *
     * @throws DecodeException when fewer than 12 octets remain ("RMPP header")
     */
    public static RmppHeader decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "RMPP header");
        int b2 = Wire.u8(segment, offset + 2);
        return new RmppHeader(Wire.u8(segment, offset), Wire.u8(segment, offset + 1), b2 >>> 3, b2 & 0x7,
                Wire.u8(segment, offset + 3), Wire.u32(segment, offset + 4), Wire.u32(segment, offset + 8));
    }
}
