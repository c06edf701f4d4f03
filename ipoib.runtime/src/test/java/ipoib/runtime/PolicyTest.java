package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PolicyTest {

    @Test
    void theJoinBackoffDoublesFromOneSecondToSixteenAndStaysThere() {
        // drivers/infiniband/ulp/ipoib/ipoib_multicast.c: backoff starts at 1 s and doubles up to
        // IPOIB_MAX_BACKOFF_SECONDS (16).
        assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 16_000L, 16_000L),
                IntStream.rangeClosed(1, 7).mapToObj(Backoff.IPOIB_JOIN::afterFailure).toList());
        // mcastRetryCount 3: at most two doublings.
        assertEquals(List.of(1_000L, 2_000L, 4_000L, 4_000L),
                IntStream.rangeClosed(1, 4).mapToObj(f -> Backoff.IPOIB_JOIN.afterFailure(f, 3)).toList());
        assertThrows(IllegalArgumentException.class, () -> new Backoff(0, 1));
    }

    @Test
    void theRateLimiterLetsOneThroughPerIntervalAndCountsTheRest() {
        ManualClock clock = new ManualClock(123);
        RateLimiter limiter = new RateLimiter(clock, 10, TimeUnit.SECONDS);
        assertEquals(0, limiter.tryAcquire());
        assertEquals(-1, limiter.tryAcquire());
        assertEquals(-1, limiter.tryAcquire());
        clock.advance(9_999, TimeUnit.MILLISECONDS);
        assertEquals(-1, limiter.tryAcquire());
        clock.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(3, limiter.tryAcquire());
    }

    @Test
    void countersKeepTheirCreationOrderAndShowOnlyWhatMoved() {
        Counters c = new Counters();
        c.counter("rx_packets").add(5);
        c.counter("dropped_no_route");
        c.counter("dropped_queue_full").increment();
        assertEquals(Map.of("rx_packets", 5L, "dropped_no_route", 0L, "dropped_queue_full", 1L), c.snapshot());
        assertEquals(List.of("rx_packets", "dropped_no_route", "dropped_queue_full"), List.copyOf(c.snapshot().keySet()));
        assertEquals(List.of("rx_packets", "dropped_queue_full"), List.copyOf(c.nonZero().keySet()));
        assertEquals(0, c.get("never"));
    }
}
