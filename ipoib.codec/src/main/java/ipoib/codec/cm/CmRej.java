package ipoib.codec.cm;

import static ipoib.codec.Fields.bits;
import static ipoib.codec.Fields.notNull;
import static ipoib.codec.cm.CmFields.bitsOf;
import static ipoib.codec.cm.CmFields.octet;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * REJ, a refusal of a REQ or REP (IBA tables 108–109).
 *
 * @param localCommId the sender's communication ID
 * @param remoteCommId the receiver's communication ID (zero when unknown)
 * @param messageRejected 2 bits: {@link #REJECTED_REQ}, {@link #REJECTED_REP}, {@link #REJECTED_OTHER}
 * @param reason the reason code (IBA table 109; e.g. {@link #INVALID_SERVICE_ID})
 * @param additionalRejectionInfo up to {@value #ARI_LENGTH} octets (its length travels in the message)
 * @param privateData up to {@value #PRIVATE_DATA_LENGTH} octets
 */
public record CmRej(int localCommId, int remoteCommId, int messageRejected, int reason, byte[] additionalRejectionInfo,
                    CmPrivateData privateData) implements CmMessage {

    /** AttributeID of REJ. */
    public static final int ATTRIBUTE_ID = 0x0012;
    public static final int ARI_LENGTH = 72;
    public static final int PRIVATE_DATA_LENGTH = 148;
    public static final int REJECTED_REQ = 0;
    public static final int REJECTED_REP = 1;
    public static final int REJECTED_OTHER = 2;

    /** Reasons of IBA table 109, as include/rdma/ib_cm.h numbers them ({@code enum ib_cm_rej_reason}). */
    public static final int NO_QP = 1;
    public static final int NO_RESOURCES = 3;
    public static final int TIMEOUT = 4;
    public static final int UNSUPPORTED = 5;
    public static final int INVALID_COMM_ID = 6;
    public static final int INVALID_SERVICE_ID = 8;
    public static final int INVALID_TRANSPORT_TYPE = 9;
    public static final int STALE_CONNECTION = 10;
    public static final int INVALID_MTU = 26;
    public static final int CONSUMER_DEFINED = 28;

    public CmRej {
        bits("CM REJ message rejected", messageRejected, 2);
        if (messageRejected == 3) {
            throw new IllegalArgumentException("CM REJ message rejected 3 is reserved (allowed 0 REQ, 1 REP, 2 other)");
        }
        bits("CM REJ reason", reason, 16);
        notNull("CM REJ additional rejection information", additionalRejectionInfo);
        if (additionalRejectionInfo.length > ARI_LENGTH) {
            throw new IllegalArgumentException("CM REJ additional rejection information of "
                    + additionalRejectionInfo.length + " octets does not fit its " + ARI_LENGTH);
        }
        additionalRejectionInfo = additionalRejectionInfo.clone();
        CmFields.fits("REJ", privateData, PRIVATE_DATA_LENGTH);
    }

    @Override
    public byte[] additionalRejectionInfo() {
        return additionalRejectionInfo.clone();
    }

    @Override
    public int attributeId() {
        return ATTRIBUTE_ID;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Wire.put32(s, o, localCommId);
        Wire.put32(s, o + 4, remoteCommId);
        Wire.put8(s, o + 8, octet(messageRejected, 2));
        Wire.put8(s, o + 9, octet(additionalRejectionInfo.length, 7));
        Wire.put16(s, o + 10, reason);
        s.asSlice(o + 12, ARI_LENGTH).fill((byte) 0);
        MemorySegment.copy(additionalRejectionInfo, 0, s, ValueLayout.JAVA_BYTE, o + 12, additionalRejectionInfo.length);
        privateData.encode("REJ", s, o + 84, PRIVATE_DATA_LENGTH);
    }

    /**
     * @throws DecodeException when fewer than 232 octets remain, the rejected message is the
     *     reserved 3, or the information length exceeds its 72 octets
     */
    public static CmRej decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, DATA_LENGTH, "CM REJ");
        int rejected = bitsOf(s, o + 8, 0, 2);
        if (rejected == 3) {
            throw new DecodeException("CM REJ message rejected", o + 8, "3 is reserved (0 REQ, 1 REP, 2 other)");
        }
        int ariLength = bitsOf(s, o + 9, 0, 7);
        if (ariLength > ARI_LENGTH) {
            throw new DecodeException("CM REJ rejection information length", o + 9,
                    ariLength + " octets, the field holds " + ARI_LENGTH);
        }
        byte[] ari = new byte[ariLength];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, o + 12, ari, 0, ariLength);
        return new CmRej(Wire.u32(s, o), Wire.u32(s, o + 4), rejected, Wire.u16(s, o + 10), ari,
                CmPrivateData.decode(s, o + 84, PRIVATE_DATA_LENGTH));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CmRej r && localCommId == r.localCommId && remoteCommId == r.remoteCommId
                && messageRejected == r.messageRejected && reason == r.reason
                && Arrays.equals(additionalRejectionInfo, r.additionalRejectionInfo) && privateData.equals(r.privateData);
    }

    @Override
    public int hashCode() {
        return ((localCommId * 31 + remoteCommId) * 31 + reason) * 31 + Arrays.hashCode(additionalRejectionInfo);
    }

    @Override
    public String toString() {
        return "CmRej[localCommId=" + Integer.toUnsignedString(localCommId) + ", remoteCommId="
                + Integer.toUnsignedString(remoteCommId) + ", messageRejected=" + messageRejected + ", reason=" + reason
                + ", ari=" + java.util.HexFormat.of().formatHex(additionalRejectionInfo) + ", privateData=" + privateData
                + "]";
    }
}
