package ipoib.cm;

/**
 * The timing of the CM exchanges, in IBA's codes (time = 4.096 µs × 2^code, IBA 12.7).
 *
 * @param responseTimeout how long this side may take to answer (the REQ's CM response timeouts), 0..31
 * @param packetLifeTime the path's packet lifetime, 0..31
 * @param maxRetries how often a REQ, REP or DREQ is sent again before the exchange fails, 0..15
 * @param timeWaitMillis how long a disconnected connection's IDs stay reserved
 */
public record CmTimeouts(int responseTimeout, int packetLifeTime, int maxRetries, long timeWaitMillis) {

    /**
     * Linux IPoIB's values (drivers/infiniband/ulp/ipoib/ipoib_cm.c, {@code ipoib_cm_send_req}: CM
     * response timeouts 20, 15 CM retries) with a packet lifetime of 18 (about 1 s).
     */
    public static final CmTimeouts LINUX_IPOIB = new CmTimeouts(20, 18, 15, 1_000);

    public CmTimeouts {
        if (responseTimeout < 0 || responseTimeout > 31 || packetLifeTime < 0 || packetLifeTime > 31) {
            throw new IllegalArgumentException("CM timeout codes " + responseTimeout + "/" + packetLifeTime
                    + " outside 0..31");
        }
        if (maxRetries < 0 || maxRetries > 15) {
            throw new IllegalArgumentException("CM retries " + maxRetries + " outside 0..15");
        }
        if (timeWaitMillis < 0) {
            throw new IllegalArgumentException("CM time-wait " + timeWaitMillis + " ms is negative");
        }
    }

    /**
     * Milliseconds of an IBA time code, as Linux's {@code cm_convert_to_ms} rounds it
     * (drivers/infiniband/core/cm.c): 4.096 µs × 2^code ≈ 2^(code − 8) ms, at least 1 ms.
     */
    public static long millis(int code) {
        return 1L << Math.max(code - 8, 0);
    }

    /** How long a sender waits for the answer to a message whose receiver has {@code peerResponseTimeout}. */
    long answerWaitMillis(int peerResponseTimeout) {
        return 2 * millis(packetLifeTime) + millis(peerResponseTimeout);
    }
}
