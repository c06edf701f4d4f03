package ipoib.sa;

import ipoib.runtime.Cancellable;
import ipoib.runtime.ManualControlLoop;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The SA client's timers (a {@link ScheduledExecutorService}) on the runtime's
 * {@link ManualControlLoop}: nothing runs until the test moves the clock with {@link #advance}.
 * Only {@code schedule(Runnable, ...)} and {@code execute} are supported; the returned futures
 * can be cancelled, nothing else.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final ManualControlLoop loop = new ManualControlLoop();

    private record Timer(Cancellable handle) implements ScheduledFuture<Object> {
        @Override
        public boolean cancel(boolean mayInterrupt) {
            handle.cancel();
            return true;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int compareTo(Delayed o) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isCancelled() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isDone() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return new Timer(loop.schedule(command, delay, unit));
    }

    /** Timers waiting. */
    int pending() {
        return loop.scheduled();
    }

    /** Moves the clock forward, running every timer that falls due on the way, in time order. */
    void advance(long amount, TimeUnit unit) {
        loop.advance(amount, unit);
    }

    @Override
    public void execute(Runnable command) {
        loop.execute(command);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void shutdown() {
        loop.close();
    }

    @Override
    public List<Runnable> shutdownNow() {
        loop.close();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return loop.isClosed();
    }

    @Override
    public boolean isTerminated() {
        return loop.isClosed();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
