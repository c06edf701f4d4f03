package ipoib.codec.cm;

import static ipoib.codec.Fields.bits;
import static ipoib.codec.Fields.notNull;
import static ipoib.codec.cm.CmFields.bitsOf;
import static ipoib.codec.cm.CmFields.octet;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * REQ, the request for a connection (IBA table 106; include/rdma/ibta_vol1_c12.h CM_REQ_*).
 *
 * @param localCommId the active side's communication ID
 * @param serviceId the service asked for (IPoIB-CM: {@link IpoibCm#serviceId})
 * @param localCaGuid the active side's channel adapter GUID
 * @param localQkey the active side's Q_Key (used by RD only; zero for RC)
 * @param localQpn the active side's QPN, 24 bits
 * @param responderResources RDMA reads/atomics the active side accepts, 8 bits
 * @param localEecn 24 bits (RD only)
 * @param initiatorDepth RDMA reads/atomics the active side issues, 8 bits
 * @param remoteEecn 24 bits (RD only)
 * @param remoteCmResponseTimeout 5 bits: how long the passive side may take to answer (4.096 µs × 2^value)
 * @param transportServiceType 2 bits: {@link #RC}, {@link #UC}, {@link #RD}
 * @param endToEndFlowControl whether the active side's receive queue sends credits
 * @param startingPsn the first PSN the active side sends, 24 bits
 * @param localCmResponseTimeout 5 bits
 * @param retryCount transport retries, 3 bits
 * @param partitionKey 16 bits
 * @param pathMtu 4 bits (IBA MTU code, 4 = 2048)
 * @param rdcExists RD only
 * @param rnrRetryCount 3 bits (7 = infinite)
 * @param maxCmRetries 4 bits
 * @param srq whether the active side's QP uses a shared receive queue
 * @param extendedTransportType 3 bits (0 unless XRC)
 * @param primary the primary path
 * @param alternate the alternate path, or null when none is offered (all zeros on the wire)
 * @param sapSupported whether the active side supports the Service Access Point
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmReq(int localCommId, long serviceId, long localCaGuid, int localQkey, int localQpn,
                    int responderResources, int localEecn, int initiatorDepth, int remoteEecn,
                    int remoteCmResponseTimeout, int transportServiceType, boolean endToEndFlowControl, int startingPsn,
                    int localCmResponseTimeout, int retryCount, int partitionKey, int pathMtu, boolean rdcExists,
                    int rnrRetryCount, int maxCmRetries, boolean srq, int extendedTransportType, CmPath primary,
                    CmPath alternate, boolean sapSupported, CmPrivateData privateData) implements CmMessage {

    /** AttributeID of REQ. */
    public static final int ATTRIBUTE_ID = 0x0010;
    /** Octets of private data a REQ carries. */
    public static final int PRIVATE_DATA_LENGTH = 92;
    /** Transport service types (IBA table 106, "Transport Service Type"). */
    public static final int RC = 0;
    public static final int UC = 1;
    public static final int RD = 2;

    public CmReq {
        bits("CM REQ local QPN", localQpn, 24);
        bits("CM REQ responder resources", responderResources, 8);
        bits("CM REQ local EECN", localEecn, 24);
        bits("CM REQ initiator depth", initiatorDepth, 8);
        bits("CM REQ remote EECN", remoteEecn, 24);
        bits("CM REQ remote CM response timeout", remoteCmResponseTimeout, 5);
        bits("CM REQ transport service type", transportServiceType, 2);
        bits("CM REQ starting PSN", startingPsn, 24);
        bits("CM REQ local CM response timeout", localCmResponseTimeout, 5);
        bits("CM REQ retry count", retryCount, 3);
        bits("CM REQ partition key", partitionKey, 16);
        bits("CM REQ path MTU", pathMtu, 4);
        bits("CM REQ RNR retry count", rnrRetryCount, 3);
        bits("CM REQ max CM retries", maxCmRetries, 4);
        bits("CM REQ extended transport type", extendedTransportType, 3);
        notNull("CM REQ primary path", primary);
        CmFields.fits("REQ", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, 0);
        Wire.put64(s, o + 8, serviceId);
        Wire.put64(s, o + 16, localCaGuid);
        Wire.put32(s, o + 24, 0);
        Wire.put32(s, o + 28, localQkey);
        Wire.put24(s, o + 32, localQpn);
        Wire.put8(s, o + 35, responderResources);
        Wire.put24(s, o + 36, localEecn);
        Wire.put8(s, o + 39, initiatorDepth);
        Wire.put24(s, o + 40, remoteEecn);
        Wire.put8(s, o + 43, octet(remoteCmResponseTimeout, 5, transportServiceType, 2, endToEndFlowControl ? 1 : 0, 1));
        Wire.put24(s, o + 44, startingPsn);
        Wire.put8(s, o + 47, octet(localCmResponseTimeout, 5, retryCount, 3));
        Wire.put16(s, o + 48, partitionKey);
        Wire.put8(s, o + 50, octet(pathMtu, 4, rdcExists ? 1 : 0, 1, rnrRetryCount, 3));
        Wire.put8(s, o + 51, octet(maxCmRetries, 4, srq ? 1 : 0, 1, extendedTransportType, 3));
        primary.encode(s, o + 52);
        if (alternate == null) {
            s.asSlice(o + 96, CmPath.LENGTH).fill((byte) 0);
        } else {
            alternate.encode(s, o + 96);
        }
        Wire.put8(s, o + 139, Wire.u8(s, o + 139) | (sapSupported ? 0x04 : 0));
        privateData.encode("REQ", s, o + 140, PRIVATE_DATA_LENGTH);
    }

    /**
     * Reads a REQ from the 232 octets at {@code offset}.
     *
     * @throws DecodeException when fewer remain, or the transport service type is the reserved 3
     */
    public static CmReq decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM REQ");
        int type = bitsOf(s, o + 43, 5, 2);
        if (type == 3) {
            throw new DecodeException("CM REQ transport service type", o + 43, "3 is reserved (0 RC, 1 UC, 2 RD)");
        }
        CmPath alternate = CmPath.isAbsent(s, o + 96) ? null : CmPath.decode(s, o + 96);
        return new CmReq(Wire.u32(s, o), Wire.u64(s, o + 8), Wire.u64(s, o + 16), Wire.u32(s, o + 28),
                Wire.u24(s, o + 32), Wire.u8(s, o + 35), Wire.u24(s, o + 36), Wire.u8(s, o + 39), Wire.u24(s, o + 40),
                bitsOf(s, o + 43, 0, 5), type, bitsOf(s, o + 43, 7, 1) == 1, Wire.u24(s, o + 44),
                bitsOf(s, o + 47, 0, 5), bitsOf(s, o + 47, 5, 3), Wire.u16(s, o + 48), bitsOf(s, o + 50, 0, 4),
                bitsOf(s, o + 50, 4, 1) == 1, bitsOf(s, o + 50, 5, 3), bitsOf(s, o + 51, 0, 4),
                bitsOf(s, o + 51, 4, 1) == 1, bitsOf(s, o + 51, 5, 3), CmPath.decode(s, o + 52), alternate,
                bitsOf(s, o + 139, 5, 1) == 1, CmPrivateData.decode(s, o + 140, PRIVATE_DATA_LENGTH));
    }
}
