package ipoib.runtime;

import java.util.concurrent.TimeUnit;

/** A clock that moves only when told to: tests of timers without waiting. */
public final class ManualClock implements Clock {
    private volatile long now;

    public ManualClock() {
        this(0);
    }

    public ManualClock(long startNanos) {
        this.now = startNanos;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    /** Moves time forward; a negative amount is refused (monotonic). */
    public synchronized void advance(long amount, TimeUnit unit) {
        if (amount < 0) {
            throw new IllegalArgumentException("time moves forward only: " + amount + " " + unit);
        }
        now += unit.toNanos(amount);
    }

    synchronized void set(long nanos) {
        if (nanos > now) {
            now = nanos;
        }
    }
}
