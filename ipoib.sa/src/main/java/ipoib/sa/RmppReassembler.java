package ipoib.sa;

import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaMad;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;

/**
 * The receiving side of one RMPP transfer (IBA 1.2.1 §13.6.5.2): takes the DATA segments of an
 * answer in sequence, acknowledges each window and the last segment, and puts the answer
 * together: the first segment's 56 header octets and the attribute data of every segment.
 *
 * <p>Follows the Linux receiver (drivers/infiniband/core/mad_rmpp.c): start_rmpp opens the
 * window after segment 1 ({@code newwin = 1 + window}), continue_rmpp drops segments beyond the
 * window, acknowledges again a segment it acknowledged already (the sender's retransmission after
 * a lost ACK), drops a repeat of one it holds but has not acknowledged yet, and acknowledges when the window's last segment or the Last segment arrives;
 * process_rmpp_data refuses a First flag that disagrees with SegmentNumber 1 (ABORT 120) and a
 * non-zero status (ABORT 124); ib_process_rmpp_recv_wc refuses an RMPPVersion other than 1
 * (ABORT 125). Unlike Linux, a segment after a gap is dropped rather than held: the sender sends
 * again from the last ACK after its timeout, which the gap's segment needed anyway. A
 * PayloadLength that announces more than {@code maxPayload} octets is refused with STOP
 * (status 1, resources exhausted).
 *
 * <p>Pure state, no clock and no threads; the owner serializes calls.
 */
final class RmppReassembler {

    /**
     * What to send back (an ACK, STOP or ABORT; null for nothing) and how the transfer stands:
     * {@code answer} set when complete, {@code failure} set when it ended without one.
     */
    record Step(byte[] reply, MemorySegment answer, String failure, boolean duplicate) {
        static Step nothing() {
            return new Step(null, null, null, false);
        }
    }

    private final int window;
    private final int maxPayload;
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private byte[] header;
    private int expected = 1;
    private int lastAck;
    private int newWindowLast = 1;
    private int announced;
    private boolean ended;
    private byte[] finalAck;

    /**
     * @param window segments acknowledged at once, 1..1024
     * @param maxPayload the largest PayloadLength accepted
     */
    RmppReassembler(int window, int maxPayload) {
        if (window < 1 || window > 1024) {
            throw new IllegalArgumentException("invalid RMPP window " + window + ": allowed 1..1024 segments");
        }
        this.window = window;
        this.maxPayload = maxPayload;
    }

    /** The last segment received in sequence. */
    int lastInSequence() {
        return expected - 1;
    }

    /** The ACK of the completed transfer, to send again when the sender repeats a segment. */
    byte[] finalAck() {
        return finalAck;
    }

    /** A MAD of the transfer with RMPP Active: a DATA segment, or an ABORT or STOP of the sender. */
    Step accept(MemorySegment mad, RmppHeader rmpp) {
        if (ended) {
            return Step.nothing();
        }
        if (rmpp.version() != RmppHeader.VERSION) {
            return abort(mad, RmppHeader.STATUS_UNSUPPORTED_VERSION, "RMPPVersion " + rmpp.version());
        }
        switch (rmpp.type()) {
            case RmppHeader.TYPE_DATA -> {
                return data(mad, rmpp);
            }
            case RmppHeader.TYPE_STOP, RmppHeader.TYPE_ABORT -> {
                ended = true;
                return new Step(null, null, "the SA sent RMPP " + RmppHeader.typeName(rmpp.type()) + " with status "
                        + RmppHeader.statusName(rmpp.status()) + " after segment " + lastInSequence(), false);
            }
            case RmppHeader.TYPE_ACK -> {
                return Step.nothing(); // the client sends no DATA: an ACK is not about anything of ours
            }
            default -> {
                return abort(mad, RmppHeader.STATUS_BAD_TYPE, "RMPPType " + rmpp.type());
            }
        }
    }

    private Step data(MemorySegment mad, RmppHeader rmpp) {
        int segment = rmpp.data1();
        if (rmpp.status() != RmppHeader.STATUS_NORMAL) {
            return abort(mad, RmppHeader.STATUS_ILLEGAL, "DATA with RMPPStatus " + rmpp.status());
        }
        boolean first = (rmpp.flags() & RmppHeader.FLAG_FIRST) != 0;
        if (first != (segment == 1)) {
            return abort(mad, RmppHeader.STATUS_INCONSISTENT_FIRST, "segment " + segment
                    + (first ? " with" : " without") + " the First flag");
        }
        if (segment > newWindowLast || segment > expected) {
            // Beyond the window, or after a gap: dropped, the sender repeats it from the last ACK.
            return Step.nothing();
        }
        if (segment <= lastAck) {
            // Already acknowledged: our ACK was lost, the sender repeats. Acknowledge again (continue_rmpp).
            return new Step(ack(mad), null, null, true);
        }
        if (segment < expected) {
            // Held but not acknowledged yet: continue_rmpp drops it without an ACK (find_seg_location).
            return new Step(null, null, null, true);
        }
        boolean last = (rmpp.flags() & RmppHeader.FLAG_LAST) != 0;
        int length = rmpp.data2();
        if (first) {
            header = mad.asSlice(0, SaMad.DATA_OFFSET).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            announced = length;
            if (length > maxPayload) {
                ended = true;
                byte[] stop = RmppControl.build(mad, RmppHeader.TYPE_STOP, RmppHeader.STATUS_RESOURCES_EXHAUSTED, 0, 0);
                return new Step(stop, null, "the answer announces " + length + " octets, more than the "
                        + maxPayload + " this client takes: STOP " + RmppHeader.statusName(1), false);
            }
        }
        int octets = RmppControl.SEGMENT_DATA;
        if (last) {
            // The last segment's PayloadLength: its SA header and its data (mad_rmpp.c get_mad_len).
            octets = length - (RmppControl.SEGMENT_PAYLOAD - RmppControl.SEGMENT_DATA);
            int total = segment * RmppControl.SEGMENT_PAYLOAD - (RmppControl.SEGMENT_DATA - octets);
            if (octets < 0 || octets > RmppControl.SEGMENT_DATA || (announced != 0 && announced != total)) {
                return abort(mad, RmppHeader.STATUS_INCONSISTENT_LENGTH, "last segment " + segment
                        + " with PayloadLength " + length + " (the first announced " + announced + ")");
            }
        }
        if ((long) data.size() + octets > maxPayload) {
            ended = true;
            byte[] stop = RmppControl.build(mad, RmppHeader.TYPE_STOP, RmppHeader.STATUS_RESOURCES_EXHAUSTED, 0, 0);
            return new Step(stop, null, "the answer grew beyond " + maxPayload + " octets: STOP", false);
        }
        data.write(mad.asSlice(SaMad.DATA_OFFSET, octets).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 0, octets);
        expected++;
        if (last) {
            ended = true;
            lastAck = segment;
            finalAck = ack(mad);
            byte[] whole = new byte[Math.max(SaMad.LENGTH, SaMad.DATA_OFFSET + data.size())];
            System.arraycopy(header, 0, whole, 0, SaMad.DATA_OFFSET);
            byte[] bytes = data.toByteArray();
            System.arraycopy(bytes, 0, whole, SaMad.DATA_OFFSET, bytes.length);
            // At least a MAD long: decoders of one record read it as they read a single MAD.
            return new Step(finalAck, MemorySegment.ofArray(whole), null, false);
        }
        if (segment == newWindowLast) {
            newWindowLast += window; // start_rmpp / continue_rmpp: newwin += window_size
            lastAck = segment;
            return new Step(ack(mad), null, null, false);
        }
        return Step.nothing();
    }

    /** The receiver gives up (its total time ran out): ABORT with status 118. */
    byte[] abortForTimeout(MemorySegment anySegment) {
        ended = true;
        return RmppControl.build(anySegment, RmppHeader.TYPE_ABORT, RmppHeader.STATUS_TOTAL_TIME_TOO_LONG, 0, 0);
    }

    /** The first segment's header octets (an ABORT on timeout is built from them), null before it. */
    MemorySegment firstHeader() {
        return header == null ? null : MemorySegment.ofArray(header.clone());
    }

    private Step abort(MemorySegment mad, int status, String reason) {
        ended = true;
        return new Step(RmppControl.build(mad, RmppHeader.TYPE_ABORT, status, 0, 0), null, reason + ": ABORT "
                + RmppHeader.statusName(status), false);
    }

    private byte[] ack(MemorySegment about) {
        // format_ack: SegmentNumber the last held in sequence, NewWindowLast the window's end.
        int held = expected - 1;
        if (held > lastAck) {
            lastAck = held;
        }
        return RmppControl.build(about, RmppHeader.TYPE_ACK, RmppHeader.STATUS_NORMAL, held,
                Math.max(newWindowLast, held));
    }
}
