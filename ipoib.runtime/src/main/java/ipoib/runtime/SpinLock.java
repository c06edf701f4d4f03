package ipoib.runtime;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A lock for critical sections of a few dozen instructions on the data path, taken by at most
 * a few threads (a sender and a receive thread): one CAS to take it and a plain release store
 * to give it back. A Java monitor takes a CAS for both (and inflates once two threads meet on
 * it), and each atomic instruction waits for the stores before it to reach the other core.
 * A thread that finds it taken spins briefly, then yields its core (the holder may be waiting
 * for one), never parks. Not reentrant.
 */
public final class SpinLock {
    private static final VarHandle STATE;
    /** Spins before a waiter starts yielding its core. */
    private static final int SPINS = 128;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SpinLock.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    /** Takes the lock, waiting (spinning, then yielding) while another thread holds it. */
    public void lock() {
        if (!STATE.compareAndSet(this, 0, 1)) {
            contended();
        }
    }

    private void contended() {
        int spins = 0;
        do {
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        } while ((int) STATE.getOpaque(this) != 0 || !STATE.compareAndSet(this, 0, 1));
    }

    /** Takes the lock if it is free. */
    public boolean tryLock() {
        return STATE.compareAndSet(this, 0, 1);
    }

    /** Gives the lock back; the holder only. */
    public void unlock() {
        STATE.setRelease(this, 0);
    }

    /** Whether some thread holds it (for assertions and tests). */
    public boolean isLocked() {
        return (int) STATE.getVolatile(this) != 0;
    }
}
