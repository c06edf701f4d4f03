package ipoib.runtime;

/**
 * A retry schedule that doubles from a first wait up to a ceiling, and then stays there: Linux
 * IPoIB's multicast join backoff (1 s doubling to IPOIB_MAX_BACKOFF_SECONDS, 16 s;
 * drivers/infiniband/ulp/ipoib/ipoib_multicast.c, {@code ipoib_mcast_join_complete}) with the
 * number of doublings optionally bounded further (the link's {@code mcastRetryCount}).
 */
public final class Backoff {

    /** Linux IPoIB's join backoff: 1 s doubling to 16 s. */
    public static final Backoff IPOIB_JOIN = new Backoff(1_000, 16_000);

    private final long firstMillis;
    private final long maxMillis;

    public Backoff(long firstMillis, long maxMillis) {
        if (firstMillis <= 0 || maxMillis < firstMillis) {
            throw new IllegalArgumentException("backoff needs 0 < first <= max, got first " + firstMillis + " ms, max "
                    + maxMillis + " ms");
        }
        this.firstMillis = firstMillis;
        this.maxMillis = maxMillis;
    }

    public long firstMillis() {
        return firstMillis;
    }

    public long maxMillis() {
        return maxMillis;
    }

    /** The wait after the {@code failures}-th consecutive failure (counted from 1). */
    public long afterFailure(int failures) {
        return afterFailure(failures, Integer.MAX_VALUE);
    }

    /**
     * The wait after the {@code failures}-th consecutive failure when at most
     * {@code maxDoublings + 1} distinct waits are allowed ({@code mcastRetryCount} read as Linux's
     * mcast_retry_cnt: the doublings stop after that many tries, the ceiling stays).
     */
    public long afterFailure(int failures, int retryCount) {
        int doublings = Math.min(Math.max(failures, 1) - 1, Math.max(retryCount, 1) - 1);
        long wait = firstMillis;
        for (int i = 0; i < doublings && wait < maxMillis; i++) {
            wait = Math.min(maxMillis, wait * 2);
        }
        return wait;
    }
}
