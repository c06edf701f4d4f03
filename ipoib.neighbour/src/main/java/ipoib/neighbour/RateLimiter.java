package ipoib.neighbour;

import java.util.concurrent.atomic.AtomicLong;

/** Lets one message through per interval, counting the ones suppressed meanwhile. */
public final class RateLimiter {
    private final long intervalNanos;
    private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimiter(long intervalMillis) {
        this.intervalNanos = intervalMillis * 1_000_000L;
    }

    /** -1 when the message must be suppressed, else how many were suppressed before it. */
    public long tryAcquire() {
        long now = System.nanoTime();
        long n = next.get();
        if ((n == Long.MIN_VALUE || now - n >= 0) && next.compareAndSet(n, now + intervalNanos)) {
            return suppressed.getAndSet(0);
        }
        suppressed.incrementAndGet();
        return -1;
    }

    /** The message with a note of the suppressed ones, or null when it is to be suppressed. */
    public String limit(String message) {
        long s = tryAcquire();
        if (s < 0) {
            return null;
        }
        return s == 0 ? message : message + " (" + s + " similar messages suppressed)";
    }
}
