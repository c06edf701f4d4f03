package ipoib.codec.mad;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The common MAD header (IBA 1.2.1 §13.4.3), the first 24 octets of every management datagram.
 *
 * <pre>
 * 0: BaseVersion  1: MgmtClass  2: ClassVersion  3: R (1) | Method (7)
 * 4-5: Status     6-7: ClassSpecific    8-15: TransactionID
 * 16-17: AttributeID    18-19: reserved    20-23: AttributeModifier
 * </pre>
 *
 * @param baseVersion 8 bits; 1 for IBA 1.x
 * @param managementClass 8 bits; 0x03 for subnet administration
 * @param classVersion 8 bits; 2 for subnet administration
 * @param method 8 bits, R bit included (see {@link MadMethod})
 * @param status 16 bits (codes in {@link ipoib.api.sa.SaStatus})
 * @param classSpecific 16 bits
 * @param transactionId all 64 bits
 * @param attributeId 16 bits (see {@link MadAttribute})
 * @param attributeModifier all 32 bits
 */
public record MadHeader(int baseVersion, int managementClass, int classVersion, int method, int status,
                        int classSpecific, long transactionId, int attributeId, int attributeModifier) {

    /** Length of the common MAD header in octets. */
    public static final int LENGTH = 24;
    /** The BaseVersion of IBA 1.x MADs. */
    public static final int BASE_VERSION = 1;

    /**
     * @throws IllegalArgumentException when a field does not fit its width
     */
    public MadHeader {
        Fields.bits("MAD BaseVersion", baseVersion, 8);
        Fields.bits("MAD MgmtClass", managementClass, 8);
        Fields.bits("MAD ClassVersion", classVersion, 8);
        Fields.bits("MAD Method", method, 8);
        Fields.bits("MAD Status", status, 16);
        Fields.bits("MAD ClassSpecific", classSpecific, 16);
        Fields.bits("MAD AttributeID", attributeId, 16);
    }

    /** Whether the method carries the R bit. */
    public boolean isResponse() {
        return MadMethod.isResponse(method);
    }

    /** The header of the answer: the response method of {@link MadMethod#responseTo} and a status. */
    public MadHeader response(int answerStatus) {
        return new MadHeader(baseVersion, managementClass, classVersion, MadMethod.responseTo(method), answerStatus,
                classSpecific, transactionId, attributeId, attributeModifier);
    }

    /**
     * Writes the 24 octets at {@code offset}, reserved octets zero.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "MAD header");
        Wire.put8(segment, offset, baseVersion);
        Wire.put8(segment, offset + 1, managementClass);
        Wire.put8(segment, offset + 2, classVersion);
        Wire.put8(segment, offset + 3, method);
        Wire.put16(segment, offset + 4, status);
        Wire.put16(segment, offset + 6, classSpecific);
        Wire.put64(segment, offset + 8, transactionId);
        Wire.put16(segment, offset + 16, attributeId);
        Wire.put16(segment, offset + 18, 0);
        Wire.put32(segment, offset + 20, attributeModifier);
    }

    /**
     * Reads the 24 octets at {@code offset}.
     *
     * @throws DecodeException when fewer than 24 octets remain ("MAD header") or BaseVersion is not
     *                         1 ("MAD BaseVersion")
     */
    public static MadHeader decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "MAD header");
        int base = Wire.u8(segment, offset);
        if (base != BASE_VERSION) {
            throw new DecodeException("MAD BaseVersion", offset, "base version " + base + ", IBA 1.x MADs have 1");
        }
        return new MadHeader(base, Wire.u8(segment, offset + 1), Wire.u8(segment, offset + 2),
                Wire.u8(segment, offset + 3), Wire.u16(segment, offset + 4), Wire.u16(segment, offset + 6),
                Wire.u64(segment, offset + 8), Wire.u16(segment, offset + 16), Wire.u32(segment, offset + 20));
    }

    @Override
    public String toString() {
        return String.format("MAD[class=0x%02x v%d %s status=0x%04x TID=0x%016x attr=0x%04x mod=0x%08x]",
                managementClass, classVersion, MadMethod.name(method), status, transactionId, attributeId,
                attributeModifier);
    }
}
