package ipoib.runtime;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Lets one message through per interval, counting the ones suppressed meanwhile (for log lines). */
public final class RateLimiter {
    private static final long NEVER = Long.MIN_VALUE;
    private final Clock clock;
    private final long intervalNanos;
    private final AtomicLong next = new AtomicLong(NEVER);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimiter(Clock clock, long interval, TimeUnit unit) {
        if (interval <= 0) {
            throw new IllegalArgumentException("rate limiter interval must be positive: " + interval + " " + unit);
        }
        this.clock = clock;
        this.intervalNanos = unit.toNanos(interval);
    }

    /** Returns -1 when the message must be suppressed, else how many were suppressed before it. */
    public long tryAcquire() {
        long now = clock.nanoTime();
        long n = next.get();
        if ((n == NEVER || now - n >= 0) && next.compareAndSet(n, now + intervalNanos)) {
            return suppressed.getAndSet(0);
        }
        suppressed.incrementAndGet();
        return -1;
    }
}
