package ipoib.sa;

import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaMad;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The sending side of one RMPP transfer (IBA 1.2.1 §13.6.5.1): an SA answer longer than one MAD
 * (or any GetTableResp) cut into DATA segments of 200 attribute octets, each with the 56 header
 * octets of the answer, sent a window at a time. The receiver's ACK names the last segment it
 * holds in sequence and the last segment it can take (NewWindowLast); an ACK timeout sends again
 * from the segment after the last acknowledged one; after the retries the transfer is aborted
 * with RMPPStatus 126 (too many retries). A STOP or ABORT of the receiver ends it.
 *
 * <p>Follows the Linux sender (drivers/infiniband/core/mad_rmpp.c: send_next_seg for the
 * PayloadLength of the first and last segments, process_rmpp_ack for the checks of an ACK,
 * ib_retry_rmpp for the retransmission from the last ACK; mad.c alloc_send_rmpp_list for
 * RMPPVersion 1, type DATA and Active, with RRespTime left as the answer had it). The window
 * starts at one segment, as init_newwin's default.
 *
 * <p>Pure state: no clock, no threads, not thread-safe. Its owner sends what each call returns,
 * arms an ACK timer while {@link #waiting()} and calls {@link #onTimeout()} when it fires.
 *
 * @since 1.2
 */
public final class RmppSender {

    /** What the owner sends now, and whether the transfer has ended. */
    public record Step(List<byte[]> mads, State state, String reason) {}

    /** Where the transfer stands. */
    public enum State {
        /** Segments are out, an ACK is awaited. */
        WAITING,
        /** Every segment was acknowledged. */
        DONE,
        /** Ended by an ABORT (sent or received) or a STOP. */
        ABORTED
    }

    private final byte[] header;
    private final byte[] payload;
    private final int segments;
    private final int pad;
    private final int retries;
    private int lastAck;
    private int sent;
    private int windowLast = 1;
    private int retriesLeft;
    private State state = State.WAITING;
    private long segmentsSent;
    private long retransmitted;

    /**
     * @param answer the answer's 56 header octets (MAD header with the response method, status
     *               and TID; the RMPP header is written per segment; the SA header)
     * @param payload the attribute data, e.g. the records of a table one after the other
     * @param retries how often a window is sent again without an ACK before the transfer is aborted
     */
    public RmppSender(MemorySegment answer, byte[] payload, int retries) {
        Objects.requireNonNull(answer, "answer");
        Objects.requireNonNull(payload, "payload");
        if (answer.byteSize() < SaMad.DATA_OFFSET) {
            throw new IllegalArgumentException("an RMPP answer needs its 56 header octets, got " + answer.byteSize());
        }
        if (retries < 0 || retries > 100) {
            throw new IllegalArgumentException("invalid RMPP retries " + retries + ": allowed 0..100");
        }
        this.header = answer.asSlice(0, SaMad.DATA_OFFSET).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        this.payload = payload.clone();
        this.segments = Math.max(1, (payload.length + RmppControl.SEGMENT_DATA - 1) / RmppControl.SEGMENT_DATA);
        this.pad = segments * RmppControl.SEGMENT_DATA - payload.length;
        this.retries = retries;
        this.retriesLeft = retries;
    }

    /** The number of DATA segments of the transfer. */
    public int segments() {
        return segments;
    }

    /** Segments sent so far, retransmissions included. */
    public long segmentsSent() {
        return segmentsSent;
    }

    /** Segments sent again after an ACK timeout. */
    public long retransmitted() {
        return retransmitted;
    }

    /** Whether an ACK is awaited (the owner's ACK timer should run). */
    public boolean waiting() {
        return state == State.WAITING;
    }

    public State state() {
        return state;
    }

    /** The first window: segment 1 (the receiver's window is not known yet). */
    public Step start() {
        return new Step(sendUpTo(windowLast, false), state, null);
    }

    /**
     * An ACK, STOP or ABORT of the receiver (a MAD of this transfer with RMPP Active and a type
     * other than DATA).
     */
    public Step onControl(RmppHeader rmpp, MemorySegment mad) {
        if (state != State.WAITING) {
            return new Step(List.of(), state, "transfer already " + state);
        }
        return switch (rmpp.type()) {
            case RmppHeader.TYPE_ACK -> onAck(rmpp, mad);
            case RmppHeader.TYPE_STOP, RmppHeader.TYPE_ABORT -> {
                state = State.ABORTED;
                yield new Step(List.of(), state, "the receiver sent " + RmppHeader.typeName(rmpp.type()) + " with status "
                        + RmppHeader.statusName(rmpp.status()));
            }
            default -> abort(mad, true, RmppHeader.STATUS_BAD_TYPE, "the receiver sent RMPPType " + rmpp.type());
        };
    }

    // mad_rmpp.c process_rmpp_ack: status, window and segment checks, then the next window.
    private Step onAck(RmppHeader ack, MemorySegment mad) {
        if (ack.status() != RmppHeader.STATUS_NORMAL) {
            return abort(mad, true, RmppHeader.STATUS_ILLEGAL, "ACK with status " + ack.status());
        }
        int segment = ack.data1();
        int newWindowLast = ack.data2();
        if (newWindowLast < segment) {
            return abort(mad, true, RmppHeader.STATUS_WINDOW_TOO_SMALL, "ACK of segment " + segment
                    + " with NewWindowLast " + newWindowLast);
        }
        if (segment > segments || segment > windowLast) {
            return abort(mad, true, RmppHeader.STATUS_SEGMENT_TOO_BIG, "ACK of segment " + segment + ", sent up to "
                    + Math.min(windowLast, segments) + " of " + segments);
        }
        if (newWindowLast < windowLast || segment < lastAck) {
            return new Step(List.of(), state, "old ACK of segment " + segment);
        }
        if (segment > lastAck) {
            lastAck = segment;
            retriesLeft = retries;
        }
        windowLast = newWindowLast;
        if (lastAck == segments) {
            state = State.DONE;
            return new Step(List.of(), state, null);
        }
        return new Step(sendUpTo(windowLast, false), state, null);
    }

    /** No ACK in time: the window again from the segment after the last ACK, or ABORT after the retries. */
    public Step onTimeout() {
        if (state != State.WAITING) {
            return new Step(List.of(), state, null);
        }
        if (retriesLeft == 0) {
            return abort(MemorySegment.ofArray(header), false, RmppHeader.STATUS_TOO_MANY_RETRIES, "no ACK after "
                    + retries + " retries (last ACK: segment " + lastAck + " of " + segments + ")");
        }
        retriesLeft--;
        sent = lastAck; // mad_rmpp.c ib_retry_rmpp: seg_num = last_ack
        return new Step(sendUpTo(windowLast, true), state, null);
    }

    private Step abort(MemorySegment about, boolean reply, int status, String reason) {
        state = State.ABORTED;
        byte[] abort = RmppControl.build(about, reply, RmppHeader.TYPE_ABORT, status, 0, 0);
        return new Step(List.of(abort), state, reason + ": ABORT " + RmppHeader.statusName(status));
    }

    private List<byte[]> sendUpTo(int last, boolean again) {
        List<byte[]> out = new ArrayList<>();
        while (sent < Math.min(last, segments)) {
            sent++;
            out.add(segment(sent));
            segmentsSent++;
            if (again) {
                retransmitted++;
            }
        }
        return out;
    }

    /** DATA segment {@code n} (1-based) as it goes on the wire. */
    byte[] segment(int n) {
        byte[] out = new byte[SaMad.LENGTH];
        System.arraycopy(header, 0, out, 0, SaMad.DATA_OFFSET);
        int flags = RmppHeader.FLAG_ACTIVE | (n == 1 ? RmppHeader.FLAG_FIRST : 0)
                | (n == segments ? RmppHeader.FLAG_LAST : 0);
        // mad_rmpp.c send_next_seg: the first segment carries the whole PayloadLength, the last
        // its own; segments in between carry 0.
        int payloadLength = n == segments ? RmppControl.SEGMENT_PAYLOAD - pad
                : n == 1 ? segments * RmppControl.SEGMENT_PAYLOAD - pad : 0;
        int responseTime = (header[SaMad.RMPP_OFFSET + 2] & 0xFF) >>> 3;
        new RmppHeader(RmppHeader.VERSION, RmppHeader.TYPE_DATA, responseTime, flags, RmppHeader.STATUS_NORMAL, n,
                payloadLength).encode(MemorySegment.ofArray(out), SaMad.RMPP_OFFSET);
        int from = (n - 1) * RmppControl.SEGMENT_DATA;
        System.arraycopy(payload, from, out, SaMad.DATA_OFFSET, Math.min(RmppControl.SEGMENT_DATA, payload.length - from));
        return out;
    }
}
