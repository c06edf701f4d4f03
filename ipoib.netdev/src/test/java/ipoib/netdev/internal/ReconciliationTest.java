package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.runtime.Cancellable;
import ipoib.runtime.ManualClock;
import ipoib.runtime.ManualControlLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The devices' reconciliation on a manual clock: periodic runs, one-off tasks, failures, and the loop's life. */
class ReconciliationTest {
    private final List<ManualControlLoop> loops = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final Reconciliation reconciliation = new Reconciliation(() -> {
        ManualControlLoop loop = new ManualControlLoop(new ManualClock(), (message, failure) -> failures.add(message));
        loops.add(loop);
        return loop;
    });

    @Test
    void eachDeviceIsReconciledEveryPeriodOfTheLoopsClockUntilCancelled() {
        AtomicInteger a = new AtomicInteger();
        AtomicInteger b = new AtomicInteger();
        Cancellable syncA = reconciliation.every(a::incrementAndGet, 2);
        ManualControlLoop loop = loops.get(0);
        loop.advance(1, TimeUnit.SECONDS);
        Cancellable syncB = reconciliation.every(b::incrementAndGet, 2);
        assertEquals(1, loops.size(), "one loop for every device");
        loop.advance(1, TimeUnit.SECONDS);
        assertEquals(1, a.get());
        assertEquals(0, b.get());
        loop.advance(5, TimeUnit.SECONDS);
        assertEquals(3, a.get()); // at 2, 4, 6 s
        assertEquals(3, b.get()); // at 3, 5, 7 s
        syncA.cancel();
        loop.advance(10, TimeUnit.SECONDS);
        assertEquals(3, a.get(), "no run after cancel");
        assertEquals(8, b.get());
        syncB.cancel();
        assertEquals(0, loop.scheduled());
    }

    @Test
    void aOneOffTaskRunsSoonAndIsIgnoredWhenNoDeviceIsUp() {
        AtomicInteger ran = new AtomicInteger();
        reconciliation.execute(ran::incrementAndGet);
        reconciliation.every(() -> { }, 2);
        reconciliation.execute(ran::incrementAndGet);
        loops.get(0).runPending();
        assertEquals(1, ran.get());
    }

    @Test
    void aFailingReconciliationIsReportedToTheLoopAndRunsAgainNextPeriod() {
        AtomicInteger runs = new AtomicInteger();
        reconciliation.every(() -> {
            runs.incrementAndGet();
            throw new IllegalStateException("ip failed");
        }, 2);
        loops.get(0).advance(6, TimeUnit.SECONDS);
        assertEquals(3, runs.get());
        assertEquals(3, failures.size(), failures.toString());
    }

    @Test
    void theLoopClosesWithTheLastDeviceAndANewOneStartsWithTheNext() {
        AtomicInteger runs = new AtomicInteger();
        reconciliation.every(runs::incrementAndGet, 2);
        reconciliation.idle();
        assertTrue(loops.get(0).isClosed());
        loops.get(0).advance(10, TimeUnit.SECONDS);
        assertEquals(0, runs.get(), "nothing runs on a closed loop");
        reconciliation.every(runs::incrementAndGet, 2);
        assertEquals(2, loops.size());
        loops.get(1).advance(2, TimeUnit.SECONDS);
        assertEquals(1, runs.get());
    }
}
