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
 *
 * <p>The same lock can live in a word of an {@code int[]} ({@link #lock(int[], int)}), so that
 * it shares its cache line with the fields it guards (a receive queue's head and size): the
 * line that must cross between cores then carries all of them.
 */
public final class SpinLock {
    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    /** Spins before a waiter starts yielding its core. */
    private static final int SPINS = 128;

    private final int[] state = new int[1];

    /** Takes the lock, waiting (spinning, then yielding) while another thread holds it. */
    public void lock() {
        lock(state, 0);
    }

    /** Takes the lock if it is free. */
    public boolean tryLock() {
        return INTS.compareAndSet(state, 0, 0, 1);
    }

    /** Gives the lock back; the holder only. */
    public void unlock() {
        unlock(state, 0);
    }

    /** Whether some thread holds it (for assertions and tests). */
    public boolean isLocked() {
        return (int) INTS.getVolatile(state, 0) != 0;
    }

    /** Takes the lock held in {@code words[index]} (0 free, 1 taken), as {@link #lock()}. */
    public static void lock(int[] words, int index) {
        if (!INTS.compareAndSet(words, index, 0, 1)) {
            contended(words, index);
        }
    }

    private static void contended(int[] words, int index) {
        int spins = 0;
        do {
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        } while ((int) INTS.getOpaque(words, index) != 0 || !INTS.compareAndSet(words, index, 0, 1));
    }

    /** Gives back the lock held in {@code words[index]}; the holder only. */
    public static void unlock(int[] words, int index) {
        INTS.setRelease(words, index, 0);
    }
}
