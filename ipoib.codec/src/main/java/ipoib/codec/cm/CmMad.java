package ipoib.codec.cm;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.mad.MadHeader;
import java.lang.foreign.MemorySegment;

/**
 * A whole CM MAD: the common header (management class 0x07, class version 2, method Send) and one
 * message.
 *
 * @param transactionId the MAD's TID: the CM keeps it for a message and its retransmissions
 * @param message the message
 */
public record CmMad(long transactionId, CmMessage message) {

    /** Management class of Communication Management (IBA table 138). */
    public static final int MANAGEMENT_CLASS = 0x07;
    /** Class version of the CM class in IBA 1.2 (Linux: IB_CM_CLASS_VERSION). */
    public static final int CLASS_VERSION = 2;
    /** Every CM message travels as a Send (IBA 12.6). */
    public static final int METHOD_SEND = 0x03;
    /** Octets of a CM MAD. */
    public static final int LENGTH = MadHeader.LENGTH + CmMessage.DATA_LENGTH;

    public CmMad {
        Fields.notNull("CM message", message);
    }

    /** The MAD header of the message. */
    public MadHeader header() {
        return new MadHeader(MadHeader.BASE_VERSION, MANAGEMENT_CLASS, CLASS_VERSION, METHOD_SEND, 0, 0, transactionId,
                message.attributeId(), 0);
    }

    /** Writes the {@value #LENGTH} octets at {@code offset}. */
    public void encode(MemorySegment segment, long offset) {
        header().encode(segment, offset);
        message.encode(segment, offset + MadHeader.LENGTH);
    }

    /**
     * Reads a CM MAD.
     *
     * @throws DecodeException when it is truncated, not of the CM class or version 2, not a Send, or
     *     its AttributeID names no message this codec knows (SIDR, LAP, APR are not decoded)
     */
    public static CmMad decode(MemorySegment segment, long offset) throws DecodeException {
        MadHeader h = MadHeader.decode(segment, offset);
        if (h.managementClass() != MANAGEMENT_CLASS) {
            throw new DecodeException("CM MgmtClass", offset + 1,
                    String.format("class 0x%02x, CM is 0x%02x", h.managementClass(), MANAGEMENT_CLASS));
        }
        if (h.classVersion() != CLASS_VERSION) {
            throw new DecodeException("CM ClassVersion", offset + 2, "version " + h.classVersion() + ", expected 2");
        }
        if (h.method() != METHOD_SEND) {
            throw new DecodeException("CM Method", offset + 3, String.format("method 0x%02x, CM messages are Sends (0x03)",
                    h.method()));
        }
        long data = offset + MadHeader.LENGTH;
        CmMessage m = switch (h.attributeId()) {
            case CmReq.ATTRIBUTE_ID -> CmReq.decode(segment, data);
            case CmMra.ATTRIBUTE_ID -> CmMra.decode(segment, data);
            case CmRej.ATTRIBUTE_ID -> CmRej.decode(segment, data);
            case CmRep.ATTRIBUTE_ID -> CmRep.decode(segment, data);
            case CmRtu.ATTRIBUTE_ID -> CmRtu.decode(segment, data);
            case CmDreq.ATTRIBUTE_ID -> CmDreq.decode(segment, data);
            case CmDrep.ATTRIBUTE_ID -> CmDrep.decode(segment, data);
            default -> throw new DecodeException("CM AttributeID", offset + 16,
                    String.format("0x%04x is no message of this codec (REQ..DREP are 0x0010..0x0016)", h.attributeId()));
        };
        return new CmMad(h.transactionId(), m);
    }
}
