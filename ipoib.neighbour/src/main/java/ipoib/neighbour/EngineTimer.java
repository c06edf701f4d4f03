package ipoib.neighbour;

import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import java.util.concurrent.TimeUnit;

/**
 * A resolver's timer: its tick every period on the control loop, rescheduled when the period
 * changes (a new configuration), stopped on close. The next tick is scheduled after the current
 * one ran, so ticks never pile up behind a slow one.
 */
public final class EngineTimer implements AutoCloseable {
    private final ControlLoop control;
    private final Runnable tick;
    private Cancellable ticker = Cancellable.NONE;
    private long periodMillis;
    private boolean closed;

    /** Starts ticking: {@code tick} every {@code millis} on {@code control}. */
    public EngineTimer(ControlLoop control, long millis, Runnable tick) {
        this.control = control;
        this.tick = tick;
        schedule(millis);
    }

    /** A new period: the timer is rescheduled when it differs from the current one. */
    public synchronized void period(long millis) {
        if (millis != periodMillis && !closed) {
            ticker.cancel();
            schedule(millis);
        }
    }

    private synchronized void schedule(long millis) {
        periodMillis = millis;
        Cancellable[] next = new Cancellable[1];
        boolean[] stopped = new boolean[1];
        Runnable[] again = new Runnable[1];
        again[0] = () -> {
            if (stopped[0]) {
                return;
            }
            try {
                tick.run();
            } finally {
                synchronized (this) {
                    if (!stopped[0]) {
                        next[0] = control.schedule(again[0], millis, TimeUnit.MILLISECONDS);
                    }
                }
            }
        };
        next[0] = control.schedule(again[0], millis, TimeUnit.MILLISECONDS);
        ticker = () -> {
            synchronized (this) {
                stopped[0] = true;
                next[0].cancel();
            }
        };
    }

    @Override
    public synchronized void close() {
        closed = true;
        ticker.cancel();
    }
}
