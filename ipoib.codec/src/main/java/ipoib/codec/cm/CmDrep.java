package ipoib.codec.cm;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * DREP, the answer to a DREQ (IBA table 113).
 *
 * @param localCommId the sender's communication ID
 * @param remoteCommId the receiver's communication ID
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmDrep(int localCommId, int remoteCommId, CmPrivateData privateData) implements CmMessage {

    /** AttributeID of DREP. */
    public static final int ATTRIBUTE_ID = 0x0016;
    /** Octets of private data a DREP carries. */
    public static final int PRIVATE_DATA_LENGTH = 224;

    public CmDrep {
        CmFields.fits("DREP", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, remoteCommId);
        privateData.encode("DREP", s, o + 8, PRIVATE_DATA_LENGTH);
    }

    /** @throws DecodeException when fewer than 232 octets remain */
    public static CmDrep decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM DREP");
        return new CmDrep(Wire.u32(s, o), Wire.u32(s, o + 4), CmPrivateData.decode(s, o + 8, PRIVATE_DATA_LENGTH));
    }
}
