package ipoib.mcast.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** The group managers' surroundings in a test: a real control thread, events and log lines kept. */
final class TestEnvironment implements McastEnvironment, AutoCloseable {
    /** An event: topic and properties. */
    record Posted(String topic, Map<String, Object> properties) {}

    final List<Posted> events = new CopyOnWriteArrayList<>();
    final List<String> warnings = new CopyOnWriteArrayList<>();
    private final ScheduledThreadPoolExecutor control = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "test-mcast-control");
        t.setDaemon(true);
        return t;
    });
    private final TrapRegistry traps = new TrapRegistry(this);
    volatile int queueLength = 64;
    volatile int maxGroups = 1024;
    volatile long auditMillis = 60_000;

    @Override
    public ScheduledExecutorService control() {
        return control;
    }

    @Override
    public int queueLength() {
        return queueLength;
    }

    @Override
    public int maxGroups() {
        return maxGroups;
    }

    @Override
    public long auditMillis() {
        return auditMillis;
    }

    @Override
    public TrapRegistry traps() {
        return traps;
    }

    @Override
    public void postEvent(String topic, Map<String, Object> properties) {
        events.add(new Posted(topic, Map.copyOf(properties)));
    }

    @Override
    public void info(String message) {
    }

    @Override
    public void warn(String message) {
        warnings.add(message);
    }

    /** Runs on the control thread and returns its result. */
    <T> T call(Callable<T> task) {
        try {
            return control.submit(task).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    void run(Runnable task) {
        call(() -> {
            task.run();
            return null;
        });
    }

    /** Polls a condition (asked on the test's thread: it may {@link #call} the control thread) until it holds. */
    void await(String what, Duration timeout, BooleanSupplier condition) {
        await(what, timeout, condition, () -> "");
    }

    void await(String what, Duration timeout, BooleanSupplier condition, Supplier<String> diagnostics) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + " " + diagnostics.get());
            }
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        control.shutdownNow();
    }
}
