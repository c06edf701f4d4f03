package ipoib.runtime;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A control loop driven by a test: posted tasks run when the test calls {@link #runPending}, timers
 * when it calls {@link #advance}, both on the test's thread, in the order a real loop would run them.
 * Threads other than the test's may post work; it waits for the test's next call.
 *
 * <p>A task that throws fails the test: the failure is rethrown from {@code runPending}/{@code advance}
 * unless a failure handler was given.
 */
public final class ManualControlLoop implements ControlLoop {
    private final ManualClock clock;
    private final FailureHandler failures;
    private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private long sequence;
    private boolean closed;
    private Thread running;

    public ManualControlLoop() {
        this(new ManualClock(), null);
    }

    /** @param failures where failing tasks are reported, or null to rethrow them to the test */
    public ManualControlLoop(ManualClock clock, FailureHandler failures) {
        this.clock = clock;
        this.failures = failures;
    }

    @Override
    public ManualClock clock() {
        return clock;
    }

    @Override
    public synchronized void execute(Runnable task) {
        if (!closed) {
            ready.add(task);
        }
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, long delay, TimeUnit unit) {
        if (closed) {
            return Cancellable.NONE;
        }
        Timer t = new Timer(clock.nanoTime() + unit.toNanos(Math.max(0, delay)), sequence++, task);
        timers.add(t);
        return () -> {
            synchronized (this) {
                timers.remove(t);
            }
        };
    }

    @Override
    public synchronized boolean inLoop() {
        return running == Thread.currentThread();
    }

    /** Runs the posted tasks, and the tasks they post, until none is left; returns how many ran. */
    public int runPending() {
        int n = 0;
        Runnable next;
        while ((next = poll()) != null) {
            runOne(next);
            n++;
        }
        return n;
    }

    /** Moves the clock forward, firing each timer at its own time, and runs what they post. */
    public void advance(long amount, TimeUnit unit) {
        long target = clock.nanoTime() + unit.toNanos(amount);
        runPending();
        while (true) {
            Timer due;
            synchronized (this) {
                due = timers.peek();
                if (due == null || due.at > target) {
                    break;
                }
                timers.poll();
            }
            clock.set(due.at);
            runOne(due.task);
            runPending();
        }
        clock.set(target);
    }

    /** Timers waiting to fire. */
    public synchronized int scheduled() {
        return timers.size();
    }

    /** Nanoseconds until the next timer fires, or -1 when none waits. */
    public synchronized long nextTimerInNanos() {
        Timer t = timers.peek();
        return t == null ? -1 : Math.max(0, t.at - clock.nanoTime());
    }

    @Override
    public <T> T call(Supplier<T> task, long timeout, TimeUnit unit) {
        if (isClosed()) {
            throw new IllegalStateException("the control loop is closed");
        }
        runPending();
        Object[] out = new Object[1];
        runOne(() -> out[0] = task.get(), true);
        runPending();
        @SuppressWarnings("unchecked")
        T value = (T) out[0];
        return value;
    }

    @Override
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        closed = true;
        ready.clear();
        timers.clear();
    }

    private synchronized Runnable poll() {
        return ready.poll();
    }

    private void runOne(Runnable task) {
        runOne(task, false);
    }

    private void runOne(Runnable task, boolean rethrow) {
        Thread previous;
        synchronized (this) {
            previous = running;
            running = Thread.currentThread();
        }
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            if (failures == null || rethrow) {
                throw e;
            }
            failures.failed("unexpected failure in a control task", e);
        } finally {
            synchronized (this) {
                running = previous;
            }
        }
    }

    private record Timer(long at, long seq, Runnable task) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
