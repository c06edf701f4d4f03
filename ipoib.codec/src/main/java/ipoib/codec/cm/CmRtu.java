package ipoib.codec.cm;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * RTU, "ready to use": the active side's last word of the set-up (IBA table 111).
 *
 * @param localCommId the active side's communication ID
 * @param remoteCommId the passive side's communication ID
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmRtu(int localCommId, int remoteCommId, CmPrivateData privateData) implements CmMessage {

    /** AttributeID of RTU. */
    public static final int ATTRIBUTE_ID = 0x0014;
    /** Octets of private data an RTU carries. */
    public static final int PRIVATE_DATA_LENGTH = 224;

    public CmRtu {
        CmFields.fits("RTU", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, remoteCommId);
        privateData.encode("RTU", s, o + 8, PRIVATE_DATA_LENGTH);
    }

    /** @throws DecodeException when fewer than 232 octets remain */
    public static CmRtu decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM RTU");
        return new CmRtu(Wire.u32(s, o), Wire.u32(s, o + 4), CmPrivateData.decode(s, o + 8, PRIVATE_DATA_LENGTH));
    }
}
