package ipoib.itest;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
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
     * Polls until what {@code look} finds is there (not null) and {@code holds}; returns it. Each
     * look asks once, so a service replaced between two questions cannot answer with a null.
     */
    public static <T> T until(String what, Duration timeout, Supplier<T> look, Predicate<? super T> holds) {
        java.util.concurrent.atomic.AtomicReference<T> seen = new java.util.concurrent.atomic.AtomicReference<>();
        until(what, timeout, () -> {
            T now = look.get();
            seen.set(now);
            return now != null && holds.test(now);
        }, () -> String.valueOf(seen.get()));
        return seen.get();
    }

    /**
     * Polls every {@code interval}: for a condition that starts a process or types a command at an
     * appliance, which would otherwise take the cores from what it waits for.
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
