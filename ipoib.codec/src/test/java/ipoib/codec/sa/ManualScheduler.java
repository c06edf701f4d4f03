package ipoib.codec.sa;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler on a manual clock for the SA client's timers: nothing runs until the test moves
 * the clock with {@link #advance}, which runs each due task on the test's thread in time order.
 * Only {@code schedule(Runnable, ...)} and {@code execute} are supported.
 */
final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final List<Task> tasks = new ArrayList<>();
    private long now;
    private long sequence;
    private boolean shutdown;

    private final class Task implements ScheduledFuture<Object> {
        final long at;
        final long seq;
        final Runnable body;
        boolean cancelled;
        boolean done;

        Task(long at, long seq, Runnable body) {
            this.at = at;
            this.seq = seq;
            this.body = body;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (ManualScheduler.this) {
                return unit.convert(at - now, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterrupt) {
            synchronized (ManualScheduler.this) {
                cancelled = !done;
                tasks.remove(this);
                return cancelled;
            }
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("not waited on by the SA client");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("not waited on by the SA client");
        }
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Task t = new Task(now + unit.toNanos(Math.max(0, delay)), sequence++, command);
        if (!shutdown) {
            tasks.add(t);
        }
        return t;
    }

    /** Timers waiting. */
    synchronized int pending() {
        return tasks.size();
    }

    /** Moves the clock forward, running every task that falls due on the way, in time order. */
    void advance(long amount, TimeUnit unit) {
        long target;
        synchronized (this) {
            target = now + unit.toNanos(amount);
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.stream().filter(t -> t.at <= target)
                        .min(Comparator.<Task>comparingLong(t -> t.at).thenComparingLong(t -> t.seq)).orElse(null);
                if (next == null) {
                    now = target;
                    return;
                }
                tasks.remove(next);
                now = next.at;
                next.done = true;
            }
            next.body.run();
        }
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
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
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = tasks.stream().map(t -> t.body).toList();
        tasks.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
