package ipoib.api.metrics;

import java.util.Arrays;

/**
 * The state of one histogram at a scrape: how many observations fell into each bucket and their
 * sum. Bucket {@code i} holds the observations above bound {@code i - 1} and at most bound
 * {@code i}; the last bucket, one more than there are bounds, holds those above the last bound
 * (Prometheus' {@code +Inf}).
 *
 * @param upperBounds the buckets' upper bounds, strictly increasing, finite
 * @param bucketCounts observations per bucket (not cumulative), {@code upperBounds.length + 1} of them
 * @param sum the sum of every observation, in the histogram's unit
 */
public record HistogramSample(double[] upperBounds, long[] bucketCounts, double sum) {
    public HistogramSample {
        upperBounds = upperBounds.clone();
        bucketCounts = bucketCounts.clone();
        if (bucketCounts.length != upperBounds.length + 1) {
            throw new IllegalArgumentException("a histogram with " + upperBounds.length + " bounds has "
                    + (upperBounds.length + 1) + " buckets (the last above every bound), not " + bucketCounts.length);
        }
        for (int i = 0; i < upperBounds.length; i++) {
            if (!Double.isFinite(upperBounds[i]) || (i > 0 && upperBounds[i] <= upperBounds[i - 1])) {
                throw new IllegalArgumentException("histogram bounds must be finite and strictly increasing: "
                        + Arrays.toString(upperBounds));
            }
        }
        for (long c : bucketCounts) {
            if (c < 0) {
                throw new IllegalArgumentException("histogram bucket counts must not be negative: "
                        + Arrays.toString(bucketCounts));
            }
        }
    }

    /** A histogram with these bounds and no observation. */
    public static HistogramSample empty(double... upperBounds) {
        return new HistogramSample(upperBounds, new long[upperBounds.length + 1], 0);
    }

    /** The buckets' upper bounds (a copy). */
    @Override
    public double[] upperBounds() {
        return upperBounds.clone();
    }

    /** Observations per bucket, not cumulative (a copy). */
    @Override
    public long[] bucketCounts() {
        return bucketCounts.clone();
    }

    /** Every observation. */
    public long count() {
        long n = 0;
        for (long c : bucketCounts) {
            n += c;
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HistogramSample h && Arrays.equals(upperBounds, h.upperBounds)
                && Arrays.equals(bucketCounts, h.bucketCounts) && Double.compare(sum, h.sum) == 0;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(upperBounds) + Arrays.hashCode(bucketCounts)) + Double.hashCode(sum);
    }

    @Override
    public String toString() {
        return "HistogramSample[bounds=" + Arrays.toString(upperBounds) + ", buckets=" + Arrays.toString(bucketCounts)
                + ", sum=" + sum + "]";
    }
}
