package ipoib.mcast.internal;

import ipoib.runtime.ManualControlLoop;
import ipoib.runtime.Reporter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The group managers' surroundings in a test: a manual control loop (tasks run when the test
 * says, timers when the test moves the clock: no real waiting), events and log lines kept.
 */
final class TestEnvironment implements Reporter, AutoCloseable {
    /** An event: topic and properties. */
    record Posted(String topic, Map<String, Object> properties) {}

    final List<Posted> events = new CopyOnWriteArrayList<>();
    final List<String> warnings = new CopyOnWriteArrayList<>();
    final ManualControlLoop loop = new ManualControlLoop();
    final TrapRegistry traps = new TrapRegistry(loop, this);
    volatile McastSettings settings = McastSettings.defaults();

    /** A manager of {@code link}'s groups, following the link's state. */
    LinkGroups manager(FakeLink link, int retryCount) {
        return call(() -> {
            LinkGroups g = new LinkGroups(link, 1000, retryCount, loop, this, traps, () -> settings);
            g.syncWithLink();
            return g;
        });
    }

    @Override
    public void event(String topic, Map<String, Object> properties) {
        events.add(new Posted(topic, Map.copyOf(properties)));
    }

    @Override
    public void info(String message) {
    }

    @Override
    public void warn(String message) {
        warnings.add(message);
    }

    @Override
    public void error(String message) {
        warnings.add(message);
    }

    /** Runs on the control loop (after what is pending) and returns its result. */
    <T> T call(Supplier<T> task) {
        return loop.call(task, 10, TimeUnit.SECONDS);
    }

    void run(Runnable task) {
        loop.run(task, 10, TimeUnit.SECONDS);
    }

    /** Runs everything posted to the control loop, and what that posts. */
    void settle() {
        loop.runPending();
    }

    /** Moves the clock, firing the timers due on the way. */
    void advance(long millis) {
        loop.advance(millis, TimeUnit.MILLISECONDS);
    }

    /** Checks a condition once the control loop has run everything posted: no time passes. */
    void check(String what, BooleanSupplier condition) {
        check(what, condition, () -> "");
    }

    void check(String what, BooleanSupplier condition, Supplier<String> diagnostics) {
        settle();
        if (!condition.getAsBoolean()) {
            throw new AssertionError("expected " + what + " " + diagnostics.get());
        }
    }

    @Override
    public void close() {
        loop.close();
    }
}
