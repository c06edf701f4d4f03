package ipoib.itest;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds or a timeout passes (no fixed sleeps in tests). */
public final class Await {
    private Await() {}

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "");
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> diagnostics) {
        // Park briefly instead of spinning: the threads being waited for share the few cores.
        until(what, timeout, Duration.ofMillis(1), condition, diagnostics);
    }

    /**
     * As {@link #until(String, Duration, BooleanSupplier, Supplier)}, looking every {@code interval}:
     * for a condition that costs the appliance work to check (an HTTP request, a file read).
     */
    public static void until(String what, Duration timeout, Duration interval, BooleanSupplier condition,
            Supplier<String> diagnostics) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what + " "
                        + diagnostics.get());
            }
            java.util.concurrent.locks.LockSupport.parkNanos(interval.toNanos());
        }
    }
}
