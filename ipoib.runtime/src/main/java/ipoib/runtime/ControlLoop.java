package ipoib.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The single thread that owns an engine's state. Every change of that state runs here, one task
 * at a time, so the engine needs no locks of its own; other threads post work with
 * {@link #execute}, ask with {@link #call}, and hand callbacks over with {@link #guard}.
 *
 * <p>A task that throws is reported to the loop's failure handler and the loop goes on. After
 * {@link #close} new work is silently dropped: the engine is going away and its state with it.
 */
public interface ControlLoop extends AutoCloseable {

    /** The clock the loop's timers run on. */
    Clock clock();

    /** Runs the task on the loop, after the tasks already posted. */
    void execute(Runnable task);

    /** Runs the task on the loop after {@code delay}; the returned handle calls it off. */
    Cancellable schedule(Runnable task, long delay, TimeUnit unit);

    /** True on the loop's own thread (or inside a manual loop's run). */
    boolean inLoop();

    /** The value computed on the loop; completes exceptionally when the task throws or the loop is closed. */
    default <T> CompletionStage<T> submit(Supplier<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        if (inLoop()) {
            complete(result, task);
            return result;
        }
        execute(() -> complete(result, task));
        if (isClosed()) {
            result.completeExceptionally(new IllegalStateException("the control loop is closed"));
        }
        return result;
    }

    /**
     * Computes a value on the loop and waits for it: for commands and DS callbacks that must see the
     * state change applied. Runs at once when already on the loop.
     *
     * @throws IllegalStateException when the loop is closed, the wait times out or is interrupted
     *     (the message says which); the task's own exception is rethrown when it is unchecked
     */
    <T> T call(Supplier<T> task, long timeout, TimeUnit unit);

    /** {@link #call} for a task without a value. */
    default void run(Runnable task, long timeout, TimeUnit unit) {
        call(() -> {
            task.run();
            return null;
        }, timeout, unit);
    }

    /** A runnable that, wherever it is called from, runs {@code task} on this loop. */
    default Runnable guard(Runnable task) {
        return () -> execute(task);
    }

    /** True once {@link #close} was called. */
    boolean isClosed();

    /** Stops the loop: pending tasks and timers are dropped. Idempotent. */
    @Override
    void close();

    private static <T> void complete(CompletableFuture<T> result, Supplier<T> task) {
        try {
            result.complete(task.get());
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
        }
    }
}
