package ipoib.codec.cm;

import static ipoib.codec.Fields.bits;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * DREQ, the request to disconnect (IBA table 112).
 *
 * @param localCommId the sender's communication ID
 * @param remoteCommId the receiver's communication ID
 * @param remoteQpnEecn the receiver's QPN (or EECN), 24 bits
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmDreq(int localCommId, int remoteCommId, int remoteQpnEecn, CmPrivateData privateData)
        implements CmMessage {

    /** AttributeID of DREQ. */
    public static final int ATTRIBUTE_ID = 0x0015;
    /** Octets of private data a DREQ carries. */
    public static final int PRIVATE_DATA_LENGTH = 220;

    public CmDreq {
        bits("CM DREQ remote QPN/EECN", remoteQpnEecn, 24);
        CmFields.fits("DREQ", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, remoteCommId);
        Wire.put32(s, o + 8, remoteQpnEecn << 8);
        privateData.encode("DREQ", s, o + 12, PRIVATE_DATA_LENGTH);
    }

    /** @throws DecodeException when fewer than 232 octets remain */
    public static CmDreq decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM DREQ");
        return new CmDreq(Wire.u32(s, o), Wire.u32(s, o + 4), Wire.u24(s, o + 8),
                CmPrivateData.decode(s, o + 12, PRIVATE_DATA_LENGTH));
    }
}
