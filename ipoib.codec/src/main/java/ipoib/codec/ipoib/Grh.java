package ipoib.codec.ipoib;

import ipoib.api.Gid;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * Layout and encoder of the 40-octet InfiniBand Global Route Header (IBA 8.3; RFC 4391 §6
 * requires IPoIB to handle packets with and without it). It is laid out like an IPv6 header:
 *
 * <pre>
 *  octet 0..3   IPVer (4 bits) | TClass (8) | FlowLabel (20)
 *  octet 4..5   PayLen
 *  octet 6      NxtHdr (0x1B: an IBA transport header follows)
 *  octet 7      HopLmt
 *  octet 8..23  SGID
 *  octet 24..39 DGID
 * </pre>
 *
 * <p>{@link GrhView} decodes it; the methods here write it, e.g. for a loopback fabric that
 * fills the GRH area of a receive buffer. Nothing allocates.
 */
public final class Grh {
    private Grh() {}

    /** Length of the GRH in octets. */
    public static final int LENGTH = 40;
    /** The IP version a GRH carries. */
    public static final int IP_VERSION = 6;
    /** NxtHdr value for an IBA transport header, the only one a UD queue pair receives. */
    public static final int NEXT_HEADER_IBA = 0x1B;

    static final int PAYLOAD_LENGTH_OFFSET = 4;
    static final int NEXT_HEADER_OFFSET = 6;
    static final int HOP_LIMIT_OFFSET = 7;
    static final int SGID_OFFSET = 8;
    static final int DGID_OFFSET = 24;

    /**
     * Writes a GRH with NxtHdr 0x1B.
     *
     * @param trafficClass 0..255
     * @param flowLabel 0..0xFFFFF
     * @param payloadLength 0..0xFFFF, the octets from the BTH to the ICRC inclusive (IBA 8.3.1)
     * @param hopLimit 0..255
     * @return {@link #LENGTH}
     * @throws IllegalArgumentException if a value does not fit its field
     * @throws IndexOutOfBoundsException if 40 octets do not fit in {@code buf} at {@code offset}
     */
    public static int write(MemorySegment buf, long offset, int trafficClass, int flowLabel, int payloadLength,
            int hopLimit, long sourcePrefix, long sourceInterfaceId, long destinationPrefix,
            long destinationInterfaceId) {
        check("GRH traffic class", trafficClass, 0xFF);
        check("GRH flow label", flowLabel, 0xF_FFFF);
        check("GRH payload length", payloadLength, 0xFFFF);
        check("GRH hop limit", hopLimit, 0xFF);
        if (offset < 0 || offset > buf.byteSize() - LENGTH) {
            throw new IndexOutOfBoundsException("GRH needs " + LENGTH + " octets at offset " + offset
                    + " of a " + buf.byteSize() + "-octet buffer");
        }
        Wire.put32(buf, offset, IP_VERSION << 28 | trafficClass << 20 | flowLabel);
        Wire.put16(buf, offset + PAYLOAD_LENGTH_OFFSET, payloadLength);
        Wire.put8(buf, offset + NEXT_HEADER_OFFSET, NEXT_HEADER_IBA);
        Wire.put8(buf, offset + HOP_LIMIT_OFFSET, hopLimit);
        Wire.put64(buf, offset + SGID_OFFSET, sourcePrefix);
        Wire.put64(buf, offset + SGID_OFFSET + 8, sourceInterfaceId);
        Wire.put64(buf, offset + DGID_OFFSET, destinationPrefix);
        Wire.put64(buf, offset + DGID_OFFSET + 8, destinationInterfaceId);
        return LENGTH;
    }

    /**
     * Writes a GRH with NxtHdr 0x1B from GID value objects.
     *
     * @see #write(MemorySegment, long, int, int, int, int, long, long, long, long)
     */
    public static int write(MemorySegment buf, long offset, int trafficClass, int flowLabel, int payloadLength,
            int hopLimit, Gid source, Gid destination) {
        if (source == null || destination == null) {
            throw new IllegalArgumentException("GRH needs a source and a destination GID, got " + source
                    + " and " + destination);
        }
        return write(buf, offset, trafficClass, flowLabel, payloadLength, hopLimit, source.prefix(),
                source.interfaceId(), destination.prefix(), destination.interfaceId());
    }

    private static void check(String field, int value, int max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(String.format("%s %d is outside 0..%d", field, value, max));
        }
    }
}
