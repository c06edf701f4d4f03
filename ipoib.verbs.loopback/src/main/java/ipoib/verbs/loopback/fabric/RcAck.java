package ipoib.verbs.loopback.fabric;

/**
 * The responder's answer to an RC packet (IBA 9.7.5.1, the AETH), packed into a long so that the
 * data path allocates nothing: an ACK of every PSN up to {@code psn}, or a NAK — sequence error
 * (resend from {@code psn}), receiver not ready (no buffer posted for the message at {@code psn}),
 * or invalid request (the message does not fit the buffer). {@link #NONE}: no answer (dropped).
 */
final class RcAck {
    private RcAck() {}

    static final long NONE = -1;
    /** Accepted by a connected queue pair but not answered (out of sequence while a NAK is outstanding). */
    static final long SILENT = -2;
    static final int ACK = 0;
    static final int NAK_SEQUENCE = 1;
    static final int RNR_NAK = 2;
    static final int NAK_INVALID_REQUEST = 3;

    static long of(int kind, int psn) {
        return (long) kind << 32 | (psn & 0xFF_FFFFL);
    }

    static int kind(long ack) {
        return (int) (ack >>> 32);
    }

    static int psn(long ack) {
        return (int) ack & 0xFF_FFFF;
    }
}
