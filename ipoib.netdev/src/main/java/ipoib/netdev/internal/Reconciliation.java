package ipoib.netdev.internal;

import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The one control loop on which the bundle's devices are reconciled with the kernel (every few
 * seconds; read in the process, {@link KernelState}), there while a device is: {@link #idle} closes it with
 * the last device, so that an updated bundle leaves no thread of its old class loader behind, and
 * the next device starts a new one. Its timers run on the loop's clock, so a test drives them on
 * a manual one.
 */
final class Reconciliation {
    private final Supplier<ControlLoop> loops;
    private ControlLoop loop;

    /** @param loops makes the loop when the first device comes (a thread of its own in the bundle) */
    Reconciliation(Supplier<ControlLoop> loops) {
        this.loops = loops;
    }

    /** Runs {@code sync} every {@code seconds} from now, each run that long after the last ended, until cancelled. */
    synchronized Cancellable every(Runnable sync, long seconds) {
        if (loop == null) {
            loop = loops.get();
        }
        Periodic p = new Periodic(loop, sync, seconds);
        p.next = loop.schedule(p::run, seconds, TimeUnit.SECONDS);
        return p;
    }

    /** Runs {@code task} soon on the loop (ignored when no device is up). */
    synchronized void execute(Runnable task) {
        if (loop != null) {
            loop.execute(task);
        }
    }

    /** The last device went: the loop closes, what it still had to do is dropped with the devices. */
    synchronized void idle() {
        if (loop != null) {
            loop.close();
            loop = null;
        }
    }

    /** A task that schedules its next run when it ends, also when it failed (the loop counts and logs that). */
    private static final class Periodic implements Cancellable {
        private final ControlLoop loop;
        private final Runnable task;
        private final long seconds;
        private volatile boolean cancelled;
        private volatile Cancellable next = Cancellable.NONE;

        Periodic(ControlLoop loop, Runnable task, long seconds) {
            this.loop = loop;
            this.task = task;
            this.seconds = seconds;
        }

        void run() {
            if (cancelled) {
                return;
            }
            try {
                task.run();
            } finally {
                if (!cancelled) {
                    next = loop.schedule(this::run, seconds, TimeUnit.SECONDS);
                }
            }
        }

        @Override
        public void cancel() {
            cancelled = true;
            next.cancel();
        }
    }
}
