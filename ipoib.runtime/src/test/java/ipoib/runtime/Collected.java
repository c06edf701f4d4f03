package ipoib.runtime;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/** Whether an object becomes unreachable: full collections are asked for until it is gone or a timeout passes. */
final class Collected {
    private Collected() {}

    static boolean within(Duration timeout, WeakReference<?> ref) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (ref.get() != null) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            System.gc();
            LockSupport.parkNanos(10_000_000);
        }
        return true;
    }
}
