package ipoib.mcast.internal;

/**
 * The join retry schedule: 1 s, doubling per failure up to 16 s as Linux IPoIB does
 * (IPOIB_MAX_BACKOFF_SECONDS), where the link's {@code mcastRetryCount} bounds the number of
 * doublings, the same reading of mcast_retry_cnt as the link's broadcast join.
 */
final class Backoff {
    private Backoff() {}

    static final long FIRST_MILLIS = 1_000;
    static final long MAX_MILLIS = 16_000;

    /** The wait after the {@code failures}-th consecutive failure (from 1). */
    static long afterFailure(int failures, int retryCount) {
        int doublings = Math.min(Math.min(Math.max(failures, 1) - 1, Math.max(retryCount, 1) - 1), 4);
        return Math.min(MAX_MILLIS, FIRST_MILLIS << doublings);
    }
}
