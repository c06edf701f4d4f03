package ipoib.verbs.loopback.fabric;

/**
 * The responder's answer to an RC packet (IBA 9.7.5.1, the AETH), packed into a long so that the
 * data path allocates nothing: an ACK of every PSN up to {@code psn}, or a NAK — sequence error
 * (resend from {@code psn}), receiver not ready (no buffer posted for the message at {@code psn}),
 * or invalid request (the message does not fit the buffer) — with the responder's message
 * sequence number (MSN, the count of messages it completed, 24 bits). {@link #NONE}: no answer
 * (dropped).
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

    static long of(int kind, int msn, int psn) {
        return (long) kind << 48 | (msn & 0xFF_FFFFL) << 24 | (psn & 0xFF_FFFFL);
    }

    static int kind(long ack) {
        return (int) (ack >>> 48);
    }

    static int msn(long ack) {
        return (int) (ack >>> 24) & 0xFF_FFFF;
    }

    static int psn(long ack) {
        return (int) ack & 0xFF_FFFF;
    }

    /**
     * The AETH syndrome of an answer (IBA 9.7.5.1, table 42): an ACK with the credit count 0x1F
     * ("invalid": no end-to-end flow control, as a responder of a shared receive queue and
     * IPoIB-CM's flow_control 0 have it); an RNR NAK with the RNR timer code 1 (the 0.01 ms the
     * requester waits, {@link LoopRcQueuePair#RNR_WAIT_NANOS}); a NAK with code 0 (PSN sequence
     * error) or 1 (invalid request).
     */
    static int syndrome(long ack) {
        return switch (kind(ack)) {
            case ACK -> 0x1F;
            case RNR_NAK -> 0x20 | 0x01;
            case NAK_SEQUENCE -> 0x60;
            default -> 0x61;
        };
    }
}
