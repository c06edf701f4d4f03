package ipoib.sa;

import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaMad;
import java.lang.foreign.MemorySegment;

/**
 * What the RMPP sender and receiver share (IBA 1.2.1 §13.6): the segment sizes of the SA class
 * and the control MADs (ACK, STOP, ABORT) one end sends to the other about a transfer.
 */
final class RmppControl {
    /** Attribute data octets in one SA segment (after the 56 header octets). */
    static final int SEGMENT_DATA = SaMad.DATA_LENGTH;
    /**
     * RMPP payload octets of one SA segment: everything after the RMPP header, the SA header
     * included, as PayloadLength counts it (Linux IB_MGMT_RMPP_DATA, include/rdma/ib_mad.h; the
     * SA header is repeated in every segment).
     */
    static final int SEGMENT_PAYLOAD = SaMad.LENGTH - SaMad.SA_HEADER_OFFSET;
    /** The R bit of the method: the answer's method is the request's with it set. */
    private static final int RESPONSE_BIT = 0x80;

    private RmppControl() {}

    /**
     * A control MAD about the transfer {@code about} belongs to: its 56 header octets with the
     * method's R bit flipped (an ACK of a GetTableResp segment is a GetTable), RMPPVersion 1,
     * the type, Active, the status, SegmentNumber and NewWindowLast; no data. As Linux builds
     * them (drivers/infiniband/core/mad_rmpp.c format_ack and nack_recv).
     */
    static byte[] build(MemorySegment about, int type, int status, int segmentNumber, int newWindowLast) {
        return build(about, true, type, status, segmentNumber, newWindowLast);
    }

    /** As {@link #build(MemorySegment, int, int, int, int)}; {@code reply} false keeps the method. */
    static byte[] build(MemorySegment about, boolean reply, int type, int status, int segmentNumber,
                        int newWindowLast) {
        byte[] out = new byte[SaMad.LENGTH];
        MemorySegment mad = MemorySegment.ofArray(out);
        MemorySegment.copy(about, 0, mad, 0, SaMad.DATA_OFFSET);
        if (reply) {
            out[3] = (byte) (out[3] ^ RESPONSE_BIT);
        }
        int responseTime = (out[SaMad.RMPP_OFFSET + 2] & 0xFF) >>> 3;
        new RmppHeader(RmppHeader.VERSION, type, responseTime, RmppHeader.FLAG_ACTIVE, status, segmentNumber,
                newWindowLast).encode(mad, SaMad.RMPP_OFFSET);
        return out;
    }
}
