package ipoib.codec.cm;

import static ipoib.codec.Fields.bits;
import static ipoib.codec.cm.CmFields.bitsOf;
import static ipoib.codec.cm.CmFields.octet;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * REP, the passive side's acceptance (IBA table 110; include/rdma/ibta_vol1_c12.h CM_REP_*).
 *
 * @param localCommId the passive side's communication ID
 * @param remoteCommId the REQ's local communication ID
 * @param localQkey RD only
 * @param localQpn the passive side's QPN, 24 bits
 * @param localEecn RD only, 24 bits
 * @param startingPsn the first PSN the passive side sends, 24 bits
 * @param responderResources 8 bits
 * @param initiatorDepth 8 bits
 * @param targetAckDelay 5 bits
 * @param failoverAccepted 2 bits (0 accepted, 1 rejected, 2 unsupported)
 * @param endToEndFlowControl whether the passive side sends credits
 * @param rnrRetryCount 3 bits
 * @param srq whether the passive side's QP uses a shared receive queue
 * @param localCaGuid the passive side's channel adapter GUID
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmRep(int localCommId, int remoteCommId, int localQkey, int localQpn, int localEecn, int startingPsn,
                    int responderResources, int initiatorDepth, int targetAckDelay, int failoverAccepted,
                    boolean endToEndFlowControl, int rnrRetryCount, boolean srq, long localCaGuid,
                    CmPrivateData privateData) implements CmMessage {

    /** AttributeID of REP. */
    public static final int ATTRIBUTE_ID = 0x0013;
    /** Octets of private data a REP carries. */
    public static final int PRIVATE_DATA_LENGTH = 196;

    public CmRep {
        bits("CM REP local QPN", localQpn, 24);
        bits("CM REP local EECN", localEecn, 24);
        bits("CM REP starting PSN", startingPsn, 24);
        bits("CM REP responder resources", responderResources, 8);
        bits("CM REP initiator depth", initiatorDepth, 8);
        bits("CM REP target ACK delay", targetAckDelay, 5);
        bits("CM REP failover accepted", failoverAccepted, 2);
        bits("CM REP RNR retry count", rnrRetryCount, 3);
        CmFields.fits("REP", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, remoteCommId);
        Wire.put32(s, o + 8, localQkey);
        Wire.put32(s, o + 12, localQpn << 8);
        Wire.put32(s, o + 16, localEecn << 8);
        Wire.put32(s, o + 20, startingPsn << 8);
        Wire.put8(s, o + 24, responderResources);
        Wire.put8(s, o + 25, initiatorDepth);
        Wire.put8(s, o + 26, octet(targetAckDelay, 5, failoverAccepted, 2, endToEndFlowControl ? 1 : 0, 1));
        Wire.put8(s, o + 27, octet(rnrRetryCount, 3, srq ? 1 : 0, 1));
        Wire.put64(s, o + 28, localCaGuid);
        privateData.encode("REP", s, o + 36, PRIVATE_DATA_LENGTH);
    }

    /**
     * Reads a REP from the 232 octets at {@code offset}.
     *
     * @throws DecodeException when fewer remain
     */
    public static CmRep decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM REP");
        return new CmRep(Wire.u32(s, o), Wire.u32(s, o + 4), Wire.u32(s, o + 8), Wire.u24(s, o + 12),
                Wire.u24(s, o + 16), Wire.u24(s, o + 20), Wire.u8(s, o + 24), Wire.u8(s, o + 25),
                bitsOf(s, o + 26, 0, 5), bitsOf(s, o + 26, 5, 2), bitsOf(s, o + 26, 7, 1) == 1,
                bitsOf(s, o + 27, 0, 3), bitsOf(s, o + 27, 3, 1) == 1, Wire.u64(s, o + 28),
                CmPrivateData.decode(s, o + 36, PRIVATE_DATA_LENGTH));
    }
}
