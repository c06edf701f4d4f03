package ipoib.codec.mad;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
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
    /** RMPPStatus (IBA 13.6.2.1, Linux include/rdma/ib_mad.h IB_MGMT_RMPP_STATUS_*): normal. */
    public static final int STATUS_NORMAL = 0;
    /** STOP: the receiver ran out of resources. */
    public static final int STATUS_RESOURCES_EXHAUSTED = 1;
    /** ABORT: the transfer took too long (the receiver's total-time limit). */
    public static final int STATUS_TOTAL_TIME_TOO_LONG = 118;
    /** ABORT: the Last flag and PayloadLength disagree. */
    public static final int STATUS_INCONSISTENT_LENGTH = 119;
    /** ABORT: the First flag and SegmentNumber disagree. */
    public static final int STATUS_INCONSISTENT_FIRST = 120;
    /** ABORT: an RMPPType that is not DATA, ACK, STOP or ABORT. */
    public static final int STATUS_BAD_TYPE = 121;
    /** ABORT: NewWindowLast below the acknowledged SegmentNumber. */
    public static final int STATUS_WINDOW_TOO_SMALL = 122;
    /** ABORT: an ACK of a segment that was never sent. */
    public static final int STATUS_SEGMENT_TOO_BIG = 123;
    /** ABORT: a status that is not allowed in that RMPPType. */
    public static final int STATUS_ILLEGAL = 124;
    /** ABORT: an RMPPVersion that is not supported. */
    public static final int STATUS_UNSUPPORTED_VERSION = 125;
    /** ABORT: the sender gave up after its retries. */
    public static final int STATUS_TOO_MANY_RETRIES = 126;
    /** ABORT: any other reason. */
    public static final int STATUS_UNSPECIFIED = 127;
    /** No RMPP: all fields zero. */
    public static final RmppHeader NONE = new RmppHeader(0, 0, 0, 0, 0, 0, 0);

    /**
     * @throws IllegalArgumentException when a field does not fit its width
     */
    public RmppHeader {
        Fields.bits("RMPPVersion", version, 8);
        Fields.bits("RMPPType", type, 8);
        Fields.bits("RRespTime", responseTime, 5);
        Fields.bits("RMPPFlags", flags, 3);
        Fields.bits("RMPPStatus", status, 8);
    }

    /** A name for an RMPPType in messages and logs. */
    public static String typeName(int type) {
        return switch (type) {
            case TYPE_DATA -> "DATA";
            case TYPE_ACK -> "ACK";
            case TYPE_STOP -> "STOP";
            case TYPE_ABORT -> "ABORT";
            default -> "type " + type;
        };
    }

    /** A name for an RMPPStatus in messages and logs: {@code "118 (total time too long)"}. */
    public static String statusName(int status) {
        String what = switch (status) {
            case STATUS_NORMAL -> "normal";
            case STATUS_RESOURCES_EXHAUSTED -> "resources exhausted";
            case STATUS_TOTAL_TIME_TOO_LONG -> "total time too long";
            case STATUS_INCONSISTENT_LENGTH -> "inconsistent Last and PayloadLength";
            case STATUS_INCONSISTENT_FIRST -> "inconsistent First and SegmentNumber";
            case STATUS_BAD_TYPE -> "bad RMPPType";
            case STATUS_WINDOW_TOO_SMALL -> "NewWindowLast too small";
            case STATUS_SEGMENT_TOO_BIG -> "SegmentNumber too big";
            case STATUS_ILLEGAL -> "illegal status";
            case STATUS_UNSUPPORTED_VERSION -> "unsupported version";
            case STATUS_TOO_MANY_RETRIES -> "too many retries";
            case STATUS_UNSPECIFIED -> "unspecified";
            default -> "unknown";
        };
        return status + " (" + what + ")";
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
