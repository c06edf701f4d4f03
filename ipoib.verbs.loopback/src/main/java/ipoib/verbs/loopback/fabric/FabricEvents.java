package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.PortEvent;
import ipoib.runtime.Clock;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The fabric's one control loop, {@code loopback-fabric-events} (or the loop a test gives: a
 * manual one moves the timers by hand): port events to their listeners, CM MADs, and the timers of
 * delay and reorder faults and of RC retransmissions. A failing task is counted
 * ({@code event_failures}) and logged, one line per 10 s.
 */
final class FabricEvents {
    private static final String EVENTS_THREAD = "loopback-fabric-events";

    private final ControlLoop loop;
    private final RateLimitedFailures failures = new RateLimitedFailures(FailureHandler.JAVA_LOGGING,
            Clock.SYSTEM, 10, TimeUnit.SECONDS);
    private volatile boolean closed;

    /** @param loop the loop to run on, or null for a thread of its own; closed with this */
    FabricEvents(ControlLoop loop) {
        this.loop = loop != null ? loop : new ThreadControlLoop(EVENTS_THREAD, failures);
    }

    ControlLoop loop() {
        return loop;
    }

    Clock clock() {
        return loop.clock();
    }

    /** Failed tasks so far. */
    long failures() {
        return failures.count();
    }

    /** Counts and logs a failure of a task that caught its own exception. */
    void failed(String what, RuntimeException e) {
        failures.failed(what, e);
    }

    /** Hands a port event to a listener on the loop; a failing listener is counted. */
    void deliver(Consumer<PortEvent> listener, PortEvent event) {
        if (closed) {
            return;
        }
        loop.execute(() -> {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                failures.failed("port event listener failed on " + event, e);
            }
        });
    }

    void execute(Runnable task) {
        loop.execute(task);
    }

    /** Runs {@code task} after {@code delayNanos} of the loop's clock (0: after what is posted). */
    void schedule(Runnable task, long delayNanos) {
        if (!closed) {
            loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Waits until what was posted so far has run (not from the loop itself). */
    void awaitPosted() {
        if (closed || loop.inLoop()) {
            return;
        }
        try {
            loop.run(() -> { }, 5, TimeUnit.SECONDS);
        } catch (IllegalStateException e) {
            // Closing, or a listener is stuck: the caller still reports what it did.
        }
    }

    void close() {
        closed = true;
        loop.close();
        if (loop instanceof ThreadControlLoop thread && !thread.inLoop()) {
            try {
                thread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
