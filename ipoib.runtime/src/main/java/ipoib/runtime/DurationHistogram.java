package ipoib.runtime;

import ipoib.api.metrics.HistogramSample;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * How long something took, counted into fixed buckets of seconds for a Prometheus histogram.
 * The durations are taken on a {@link Clock} (a manual one in tests): {@link #start} reads it,
 * {@link #observeSince} records the time since. Recording allocates nothing and takes no lock;
 * a {@link #snapshot} taken while others record may be a few observations behind its sum.
 */
public final class DurationHistogram {
    /**
     * Bounds, in seconds, for exchanges with the subnet administrator and what waits for them
     * (joins, path queries): from a millisecond, an in-JVM fabric's answer, to a minute, several
     * SA timeouts and retries.
     */
    public static final double[] SA_EXCHANGE_SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
        2.5, 5, 10, 30, 60};

    private final Clock clock;
    private final double[] bounds;
    private final long[] boundNanos;
    private final AtomicLongArray buckets;
    private final LongAdder sumNanos = new LongAdder();

    /** @param upperBounds the buckets' upper bounds in seconds, strictly increasing */
    public DurationHistogram(Clock clock, double... upperBounds) {
        HistogramSample.empty(upperBounds); // checks the bounds
        this.clock = clock;
        this.bounds = upperBounds.clone();
        this.boundNanos = new long[bounds.length];
        for (int i = 0; i < bounds.length; i++) {
            boundNanos[i] = Math.round(bounds[i] * 1e9);
        }
        this.buckets = new AtomicLongArray(bounds.length + 1);
    }

    /** The clock's time now: hand it to {@link #observeSince} when the thing measured ends. */
    public long start() {
        return clock.nanoTime();
    }

    /** Records the time from {@code startNanos} (of {@link #start}) to now. */
    public void observeSince(long startNanos) {
        observe(clock.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    /** Records one duration (a negative one as zero). */
    public void observe(long duration, TimeUnit unit) {
        long nanos = Math.max(0, unit.toNanos(duration));
        int i = 0;
        while (i < boundNanos.length && nanos > boundNanos[i]) {
            i++;
        }
        buckets.incrementAndGet(i);
        sumNanos.add(nanos);
    }

    /** Every observation so far, in seconds. */
    public HistogramSample snapshot() {
        long[] counts = new long[buckets.length()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = buckets.get(i);
        }
        return new HistogramSample(bounds, counts, sumNanos.sum() / 1e9);
    }
}
