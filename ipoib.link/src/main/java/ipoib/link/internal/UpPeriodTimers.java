package ipoib.link.internal;

import ipoib.link.internal.cm.ConnectedMode;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The periodic work of an UP period, on the link's control loop: the transmit watchdog (send
 * buffers not returned within the transmit timeout are counted and reported) and the handle
 * reaper (retired address handles destroyed once their sends completed; Linux: ipoib_reap_ah,
 * every HZ). Started when the link comes UP, stopped when it goes down, both on the loop.
 */
final class UpPeriodTimers {
    static final long REAP_MILLIS = 1000;

    private final ControlLoop control;
    private final LinkConfig config;
    private final LinkHooks hooks;
    private final LinkStatistics stats;
    private final Supplier<LinkResources> resources;
    // Written on the control loop only.
    private Cancellable watchdog;
    private Cancellable reaper;

    UpPeriodTimers(ControlLoop control, LinkConfig config, LinkHooks hooks, LinkStatistics stats,
                   Supplier<LinkResources> resources) {
        this.control = control;
        this.config = config;
        this.hooks = hooks;
        this.stats = stats;
        this.resources = resources;
    }

    void start() {
        long timeoutNanos = config.transmitTimeoutMillis() * 1_000_000L;
        watchdog = every(config.transmitTimeoutMillis(), () -> {
            LinkResources r = resources.get();
            if (r != null) {
                int stuck = r.stuckSends(timeoutNanos);
                if (stuck > 0) {
                    stats.txStuck.add(stuck);
                    hooks.warn(config.name() + ": " + stuck + " send buffers not returned within "
                            + config.transmitTimeoutMillis() + " ms", null);
                }
            }
        });
        reaper = every(REAP_MILLIS, () -> {
            LinkResources r = resources.get();
            if (r != null) {
                r.reapHandles();
                ConnectedMode cm = r.connected;
                if (cm != null) {
                    cm.reapIdle(); // idle connections (ConnectedMode.IDLE_NANOS)
                }
            }
        });
    }

    void stop() {
        if (watchdog != null) {
            watchdog.cancel();
            watchdog = null;
        }
        if (reaper != null) {
            reaper.cancel();
            reaper = null;
        }
    }

    /** Runs the task on the loop every {@code millis} until the returned handle is cancelled. */
    private Cancellable every(long millis, Runnable task) {
        Cancellable[] next = new Cancellable[1];
        boolean[] cancelled = new boolean[1];
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (cancelled[0]) {
                return;
            }
            task.run();
            next[0] = control.schedule(tick[0], millis, TimeUnit.MILLISECONDS);
        };
        next[0] = control.schedule(tick[0], millis, TimeUnit.MILLISECONDS);
        // Cancelled on the loop (the link going down): no race with tick.
        return () -> {
            cancelled[0] = true;
            next[0].cancel();
        };
    }
}
