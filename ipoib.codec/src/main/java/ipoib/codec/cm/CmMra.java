package ipoib.codec.cm;

import static ipoib.codec.Fields.bits;
import static ipoib.codec.cm.CmFields.bitsOf;
import static ipoib.codec.cm.CmFields.octet;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * MRA, "message receipt acknowledgement": the receiver needs more time to answer (IBA table 107).
 *
 * @param localCommId the sender's communication ID
 * @param remoteCommId the receiver's communication ID
 * @param messageMraed 2 bits: 0 REQ, 1 REP, 2 LAP
 * @param serviceTimeout 5 bits: the extra time asked for (4.096 µs × 2^value)
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmMra(int localCommId, int remoteCommId, int messageMraed, int serviceTimeout,
                    CmPrivateData privateData) implements CmMessage {

    /** AttributeID of MRA. */
    public static final int ATTRIBUTE_ID = 0x0011;
    public static final int PRIVATE_DATA_LENGTH = 222;

    public CmMra {
        bits("CM MRA message MRAed", messageMraed, 2);
        if (messageMraed == 3) {
            throw new IllegalArgumentException("CM MRA message MRAed 3 is reserved (allowed 0 REQ, 1 REP, 2 LAP)");
        }
        bits("CM MRA service timeout", serviceTimeout, 5);
        CmFields.fits("MRA", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, remoteCommId);
        Wire.put8(s, o + 8, octet(messageMraed, 2));
        Wire.put8(s, o + 9, octet(serviceTimeout, 5));
        privateData.encode("MRA", s, o + 10, PRIVATE_DATA_LENGTH);
    }

    /** @throws DecodeException when fewer than 232 octets remain or the MRAed message is the reserved 3 */
    public static CmMra decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM MRA");
        int mraed = bitsOf(s, o + 8, 0, 2);
        if (mraed == 3) {
            throw new DecodeException("CM MRA message MRAed", o + 8, "3 is reserved (0 REQ, 1 REP, 2 LAP)");
        }
        return new CmMra(Wire.u32(s, o), Wire.u32(s, o + 4), mraed, bitsOf(s, o + 9, 0, 5),
                CmPrivateData.decode(s, o + 10, PRIVATE_DATA_LENGTH));
    }
}
