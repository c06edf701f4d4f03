package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.metrics.HistogramSample;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DurationHistogramTest {

    @Test
    void countsEachDurationInTheFirstBucketWhoseBoundHoldsIt() {
        ManualClock clock = new ManualClock();
        DurationHistogram h = new DurationHistogram(clock, 0.01, 0.1, 1);
        long start = h.start();
        clock.advance(10, TimeUnit.MILLISECONDS); // on a bound: that bucket (le is "less or equal")
        h.observeSince(start);
        h.observe(11, TimeUnit.MILLISECONDS);
        h.observe(2, TimeUnit.SECONDS);
        HistogramSample s = h.snapshot();
        assertArrayEquals(new long[] {1, 1, 0, 1}, s.bucketCounts());
        assertEquals(3, s.count());
        assertEquals(2.021, s.sum(), 1e-9);
    }
}
