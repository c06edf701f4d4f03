package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RateLimitedFailuresTest {

    @Test
    void everyFailureIsCountedAndOnePerIntervalIsLoggedWithHowManyWereHeldBack() {
        ManualClock clock = new ManualClock(7);
        List<String> logged = new ArrayList<>();
        RateLimitedFailures failures = new RateLimitedFailures((m, t) -> logged.add(m + ": " + t.getMessage()), clock,
                10, TimeUnit.SECONDS);
        failures.failed("timer failed", new IllegalStateException("one"));
        failures.failed("timer failed", new IllegalStateException("two"));
        failures.failed("timer failed", new IllegalStateException("three"));
        assertEquals(List.of("timer failed: one"), logged);
        assertEquals(3, failures.count());

        clock.advance(10, TimeUnit.SECONDS);
        failures.failed("timer failed", new IllegalStateException("four"));
        assertEquals(List.of("timer failed: one",
                "timer failed (2 further failures not logged since the last one): four"), logged);
        assertEquals(4, failures.count());
    }

    @Test
    void aThreadControlLoopHandsItsTasksFailuresOverCounted() throws Exception {
        RateLimitedFailures failures = new RateLimitedFailures((m, t) -> { }, Clock.SYSTEM, 1, TimeUnit.HOURS);
        try (ThreadControlLoop loop = new ThreadControlLoop("test-failures", failures)) {
            for (int i = 0; i < 3; i++) {
                loop.execute(() -> {
                    throw new IllegalStateException("task failed");
                });
            }
            loop.call(() -> null, 10, TimeUnit.SECONDS); // the three ran before this one
            assertEquals(3, failures.count());
        }
    }
}
