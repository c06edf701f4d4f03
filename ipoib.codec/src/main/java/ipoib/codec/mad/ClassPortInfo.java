package ipoib.codec.mad;

import ipoib.api.sa.SaCapabilities;
import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The ClassPortInfo attribute (IBA 13.4.8.1) as the SA answers it: the parts a client uses —
 * versions, CapabilityMask, CapabilityMask2 (27 bits) with RespTimeValue (5 bits) in one word —
 * and the GSI redirect/trap Q_Keys OpenSM fills in. Other fields (redirect and trap addresses)
 * are written zero and not read.
 *
 * @param baseVersion MAD base version (1)
 * @param classVersion SA class version (2)
 * @param capabilityMask 16 bits
 * @param capabilityMask2 27 bits
 * @param responseTimeValue 5 bits
 */
public record ClassPortInfo(int baseVersion, int classVersion, int capabilityMask, int capabilityMask2,
                            int responseTimeValue) {
    /** Length of the attribute in octets. */
    public static final int LENGTH = 72;
    /** Attribute ID. */
    public static final int ATTRIBUTE_ID = MadAttribute.CLASS_PORT_INFO;
    private static final int REDIRECT_QP = 32;
    private static final int REDIRECT_QKEY = 36;
    private static final int TRAP_QKEY = 68;
    private static final int GSI_QKEY = 0x8001_0000;

    /**
     * @throws IllegalArgumentException when a field does not fit its width
     */
    public ClassPortInfo {
        Fields.bits("ClassPortInfo BaseVersion", baseVersion, 8);
        Fields.bits("ClassPortInfo ClassVersion", classVersion, 8);
        Fields.bits("ClassPortInfo CapabilityMask", capabilityMask, 16);
        Fields.bits("ClassPortInfo CapabilityMask2", capabilityMask2, 27);
        Fields.bits("ClassPortInfo RespTimeValue", responseTimeValue, 5);
    }

    /** The API view of the capabilities. */
    public SaCapabilities toApi() {
        return new SaCapabilities(capabilityMask, capabilityMask2, responseTimeValue);
    }

    /** Writes the attribute; redirect QP 1 and both Q_Keys the GSI's, as OpenSM answers. */
    public void encode(MemorySegment segment, long offset) {
        segment.asSlice(offset, LENGTH).fill((byte) 0);
        Wire.put8(segment, offset, baseVersion);
        Wire.put8(segment, offset + 1, classVersion);
        Wire.put16(segment, offset + 2, capabilityMask);
        Wire.put32(segment, offset + 4, capabilityMask2 << 5 | responseTimeValue);
        Wire.put32(segment, offset + REDIRECT_QP, 1);
        Wire.put32(segment, offset + REDIRECT_QKEY, GSI_QKEY);
        Wire.put32(segment, offset + TRAP_QKEY, GSI_QKEY);
    }

    /**
     * Reads the attribute.
     *
     * @throws DecodeException when fewer than {@value #LENGTH} octets remain ("ClassPortInfo")
     */
    public static ClassPortInfo decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "ClassPortInfo");
        int word = Wire.u32(segment, offset + 4);
        return new ClassPortInfo(Wire.u8(segment, offset), Wire.u8(segment, offset + 1), Wire.u16(segment, offset + 2),
                word >>> 5, word & 0x1F);
    }
}
