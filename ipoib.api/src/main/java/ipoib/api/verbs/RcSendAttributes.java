package ipoib.api.verbs;

/**
 * What RTR → RTS (ready to send) needs (IBA 11.2.4.2): the first PSN sent and the transport's
 * retransmission rules.
 *
 * @param sendPsn the first PSN this side sends, 24 bits
 * @param timeout the local ACK timeout code: 4.096 µs × 2^timeout, 1..31 (0 would mean infinite)
 * @param retryCount retransmissions of an unacknowledged packet before the send fails, 0..7
 * @param rnrRetry retries after a receiver-not-ready NAK, 0..7 (7: for ever)
 */
public record RcSendAttributes(int sendPsn, int timeout, int retryCount, int rnrRetry) {
    public RcSendAttributes {
        if (sendPsn < 0 || sendPsn > 0xFF_FFFF) {
            throw new IllegalArgumentException("invalid send PSN '" + sendPsn + "': allowed 0..16777215");
        }
        if (timeout < 1 || timeout > 31) {
            throw new IllegalArgumentException("invalid ACK timeout code '" + timeout + "': allowed 1..31");
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetry < 0 || rnrRetry > 7) {
            throw new IllegalArgumentException("invalid retry counts '" + retryCount + "/" + rnrRetry + "': allowed 0..7");
        }
    }

    /** The ACK timeout in nanoseconds. */
    public long timeoutNanos() {
        return 4_096L << timeout;
    }
}
