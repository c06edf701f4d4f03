package ipoib.runtime;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A control loop on one daemon thread of its own, named after the engine it serves: a platform
 * thread, or for a loop of which there is one per interface a virtual thread
 * ({@link #onVirtualThread}, unless {@link Threads#VIRTUAL_PROPERTY} says otherwise), which
 * holds no platform thread while it waits for its next task.
 */
public final class ThreadControlLoop implements ControlLoop {
    private final ScheduledThreadPoolExecutor executor;
    private final FailureHandler failures;
    private final String name;
    private volatile Thread thread;

    /**
     * @param name the thread's name, e.g. {@code ipoib-link-ib0_1_ffff}
     * @param failures where a task that throws is reported
     */
    public ThreadControlLoop(String name, FailureHandler failures) {
        this(name, failures, false);
    }

    /**
     * A loop on a virtual thread: for the many loops of a large appliance (one per link), whose
     * tasks are short and wait in no native call, so that a thousand links do not hold a thousand
     * platform threads.
     */
    public static ThreadControlLoop onVirtualThread(String name, FailureHandler failures) {
        return new ThreadControlLoop(name, failures, Threads.virtualLoops());
    }

    private ThreadControlLoop(String name, FailureHandler failures, boolean virtual) {
        this.name = name;
        this.failures = failures;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = virtual ? Threads.createVirtual(name, r) : Threads.create(name, true, r);
            thread = t;
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Clock clock() {
        return Clock.SYSTEM;
    }

    @Override
    public void execute(Runnable task) {
        try {
            executor.execute(() -> guarded(task));
        } catch (RejectedExecutionException closed) {
            // Closed: the engine and its state are going away.
        }
    }

    @Override
    public Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        try {
            ScheduledFuture<?> f = executor.schedule(() -> guarded(task), Math.max(0, delay), unit);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException closed) {
            return Cancellable.NONE;
        }
    }

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    @Override
    public <T> T call(Supplier<T> task, long timeout, TimeUnit unit) {
        if (inLoop()) {
            return task.get();
        }
        FutureTask<T> f = new FutureTask<>(task::get);
        try {
            executor.execute(f);
        } catch (RejectedExecutionException closed) {
            throw new IllegalStateException(name + " is closed");
        }
        try {
            return f.get(timeout, unit);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + " did not answer within " + timeout + " " + unit.toString().toLowerCase());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (java.util.concurrent.CancellationException e) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    @Override
    public boolean isClosed() {
        return executor.isShutdown();
    }

    @Override
    public void close() {
        executor.shutdownNow().forEach(r -> {
            if (r instanceof java.util.concurrent.Future<?> f) {
                f.cancel(false); // callers waiting in call() learn that the loop closed
            }
        });
    }

    /** Waits until the loop's thread has ended, for a clean stop of a component. */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return executor.awaitTermination(timeout, unit);
    }

    private void guarded(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | LinkageError e) {
            failures.failed(name + ": unexpected failure in a control task", e);
        }
    }
}
