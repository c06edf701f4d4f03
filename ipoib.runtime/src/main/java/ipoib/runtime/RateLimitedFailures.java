package ipoib.runtime;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The failure handler of a control loop that may see a failure repeat (a timer of every request,
 * a task per received MAD): every failure is counted, and at most one per interval reaches the
 * log, saying how many were held back since the last one. None is dropped unseen: the count
 * shows them all.
 */
public final class RateLimitedFailures implements FailureHandler {
    private final FailureHandler log;
    private final RateLimiter limiter;
    private final LongAdder failures = new LongAdder();

    /**
     * @param log where the failures that pass go (e.g. {@link FailureHandler#JAVA_LOGGING})
     * @param clock the clock of the interval
     */
    public RateLimitedFailures(FailureHandler log, Clock clock, long interval, TimeUnit unit) {
        this.log = Objects.requireNonNull(log, "log");
        this.limiter = new RateLimiter(clock, interval, unit);
    }

    @Override
    public void failed(String message, Throwable failure) {
        failures.increment();
        long heldBack = limiter.tryAcquire();
        if (heldBack == 0) {
            log.failed(message, failure);
        } else if (heldBack > 0) {
            log.failed(message + " (" + heldBack + " further failures not logged since the last one)", failure);
        }
    }

    /** Every failure handed over so far, logged or not. */
    public long count() {
        return failures.sum();
    }
}
