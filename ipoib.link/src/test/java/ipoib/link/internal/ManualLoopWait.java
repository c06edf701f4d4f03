package ipoib.link.internal;

import ipoib.runtime.ManualControlLoop;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for what other threads (the fabric's, the SA's, the CM's) do, running a manual loop's tasks meanwhile. */
final class ManualLoopWait {
    private ManualLoopWait() {}

    /**
     * Runs the loop's posted tasks until the condition holds; fails after {@code timeout} with
     * {@code what} and the context.
     */
    static void until(ManualControlLoop loop, Duration timeout, String what, BooleanSupplier condition,
                      Supplier<Object> context) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            loop.runPending();
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; log " + context.get());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
