package ipoib.mcast.internal;

import java.util.concurrent.atomic.AtomicLong;

/** Lets one message through per interval, counting the ones suppressed meanwhile (RFC 4391 §12 logging). */
final class RateLimiter {
    private final long intervalNanos;
    private final java.util.function.LongSupplier clock;
    private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    RateLimiter(long intervalMillis, java.util.function.LongSupplier clock) {
        this.intervalNanos = intervalMillis * 1_000_000L;
        this.clock = clock;
    }

    /** Returns -1 when the message must be suppressed, else how many were suppressed before it. */
    long tryAcquire() {
        long now = clock.getAsLong();
        long n = next.get();
        if ((n == Long.MIN_VALUE || now - n >= 0) && next.compareAndSet(n, now + intervalNanos)) {
            return suppressed.getAndSet(0);
        }
        suppressed.incrementAndGet();
        return -1;
    }
}
