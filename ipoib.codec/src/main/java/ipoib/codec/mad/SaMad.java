package ipoib.codec.mad;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * A subnet administration MAD (IBA 1.2.1 §15.2.1): 256 octets of common MAD header, RMPP header,
 * SA header and 200 octets of data that hold the attribute (one record, or a table of records
 * {@link SaHeader#attributeOffset()} words apart in GetTable answers).
 *
 * <pre>
 * 0-23: common MAD header   24-35: RMPP header   36-55: SA header   56-255: data
 * </pre>
 *
 * <p>Encode the MAD first (it zeroes the data area), then the attribute at
 * {@code offset + DATA_OFFSET}. {@link #decode} needs only the 56 header octets, since some
 * transports deliver answers shorter than 256 octets; each attribute decoder checks its own
 * length.
 *
 * @param header the common MAD header
 * @param rmpp the RMPP header ({@link RmppHeader#NONE} for single MADs)
 * @param sa the SA header
 */
public record SaMad(MadHeader header, RmppHeader rmpp, SaHeader sa) {

    /** MgmtClass of subnet administration. */
    public static final int MANAGEMENT_CLASS = 0x03;
    /** ClassVersion of subnet administration in IBA 1.2. */
    public static final int CLASS_VERSION = 2;
    /** Length of a MAD. */
    public static final int LENGTH = 256;
    public static final int RMPP_OFFSET = MadHeader.LENGTH;
    public static final int SA_HEADER_OFFSET = RMPP_OFFSET + RmppHeader.LENGTH;
    /** Where the attribute data starts. */
    public static final int DATA_OFFSET = SA_HEADER_OFFSET + SaHeader.LENGTH;
    /** Octets of attribute data in one MAD. */
    public static final int DATA_LENGTH = LENGTH - DATA_OFFSET;

    /**
     * @throws IllegalArgumentException when a part is null
     */
    public SaMad {
        Fields.notNull("MAD header", header);
        Fields.notNull("RMPP header", rmpp);
        Fields.notNull("SA header", sa);
    }

    /**
     * A request of the SA class (BaseVersion 1, MgmtClass 0x03, ClassVersion 2), status 0, no RMPP,
     * SM_Key 0, AttributeOffset 0.
     */
    public static SaMad request(int method, long transactionId, int attributeId, int attributeModifier,
                                long componentMask) {
        return new SaMad(new MadHeader(MadHeader.BASE_VERSION, MANAGEMENT_CLASS, CLASS_VERSION, method, 0, 0,
                transactionId, attributeId, attributeModifier), RmppHeader.NONE, new SaHeader(0, 0, componentMask));
    }

    /** The answer's headers: response method, the status, and the request's TID, attribute and mask. */
    public SaMad response(int status) {
        return new SaMad(header.response(status), RmppHeader.NONE, sa);
    }

    /** This MAD with another SA header (e.g. a GetTable answer's AttributeOffset). */
    public SaMad withSa(SaHeader newSa) {
        return new SaMad(header, rmpp, newSa);
    }

    /**
     * Writes the 56 header octets at {@code offset} and zeroes the 200 data octets.
     *
     * @throws IndexOutOfBoundsException when fewer than 256 octets remain
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "SA MAD");
        segment.asSlice(offset, LENGTH).fill((byte) 0);
        header.encode(segment, offset);
        rmpp.encode(segment, offset + RMPP_OFFSET);
        sa.encode(segment, offset + SA_HEADER_OFFSET);
    }

    /**
     * Reads the 56 header octets at {@code offset}.
     *
     * @throws DecodeException when fewer than 56 octets remain ("SA MAD"), BaseVersion is not 1
     *                         ("MAD BaseVersion"), MgmtClass is not 0x03 ("MAD MgmtClass") or
     *                         ClassVersion is not 2 ("MAD ClassVersion")
     */
    public static SaMad decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, DATA_OFFSET, "SA MAD");
        MadHeader header = MadHeader.decode(segment, offset);
        if (header.managementClass() != MANAGEMENT_CLASS) {
            throw new DecodeException("MAD MgmtClass", offset + 1, String.format(
                    "management class 0x%02x, subnet administration is 0x03", header.managementClass()));
        }
        if (header.classVersion() != CLASS_VERSION) {
            throw new DecodeException("MAD ClassVersion", offset + 2, "class version " + header.classVersion()
                    + ", subnet administration is version 2");
        }
        return new SaMad(header, RmppHeader.decode(segment, offset + RMPP_OFFSET),
                SaHeader.decode(segment, offset + SA_HEADER_OFFSET));
    }
}
