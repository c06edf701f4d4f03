package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The data path's spin lock: mutual exclusion and visibility under contention. */
class SpinLockTest {

    @Test
    void excludesAndPublishesWhatTheHolderWrote() throws Exception {
        SpinLock lock = new SpinLock();
        long[] shared = new long[2]; // two plain fields that must always move together
        int threads = 4;
        int rounds = 200_000;
        List<Thread> all = new ArrayList<>();
        boolean[] torn = new boolean[1];
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    lock.lock();
                    try {
                        if (shared[0] != shared[1]) {
                            torn[0] = true;
                        }
                        shared[0]++;
                        shared[1]++;
                    } finally {
                        lock.unlock();
                    }
                }
            });
            all.add(th);
            th.start();
        }
        for (Thread th : all) {
            th.join();
        }
        lock.lock();
        assertEquals((long) threads * rounds, shared[0], "no increment lost");
        assertEquals(shared[0], shared[1]);
        assertFalse(torn[0], "no holder saw another holder's half-done update");
        lock.unlock();
    }

    @Test
    void tryLockFailsWhileHeld() {
        SpinLock lock = new SpinLock();
        assertTrue(lock.tryLock());
        assertTrue(lock.isLocked());
        assertFalse(lock.tryLock());
        lock.unlock();
        assertFalse(lock.isLocked());
        assertTrue(lock.tryLock());
    }
}
