package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControlLoopTest {

    @Test
    void aManualLoopFiresTimersInTimeOrderAtTheirOwnTimes() {
        ManualControlLoop loop = new ManualControlLoop();
        List<String> seen = new ArrayList<>();
        loop.schedule(() -> seen.add("b@" + loop.clock().millis()), 2_000, TimeUnit.MILLISECONDS);
        loop.schedule(() -> seen.add("a@" + loop.clock().millis()), 1_000, TimeUnit.MILLISECONDS);
        loop.schedule(() -> {
            seen.add("c@" + loop.clock().millis());
            loop.schedule(() -> seen.add("d@" + loop.clock().millis()), 500, TimeUnit.MILLISECONDS);
        }, 2_000, TimeUnit.MILLISECONDS);
        loop.advance(1_999, TimeUnit.MILLISECONDS);
        assertEquals(List.of("a@1000"), seen);
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(List.of("a@1000", "b@2000", "c@2000"), seen);
        assertEquals(TimeUnit.MILLISECONDS.toNanos(500), loop.nextTimerInNanos());
        loop.advance(10, TimeUnit.SECONDS);
        assertEquals(List.of("a@1000", "b@2000", "c@2000", "d@2500"), seen);
        assertEquals(12_000, loop.clock().millis());
    }

    @Test
    void aCancelledTimerNeverRunsAndPostedTasksRunInOrder() {
        ManualControlLoop loop = new ManualControlLoop();
        List<Integer> seen = new ArrayList<>();
        Cancellable c = loop.schedule(() -> seen.add(0), 1, TimeUnit.SECONDS);
        loop.execute(() -> {
            seen.add(1);
            loop.execute(() -> seen.add(3));
        });
        loop.execute(() -> seen.add(2));
        c.cancel();
        assertEquals(0, seen.size());
        assertEquals(3, loop.runPending());
        loop.advance(5, TimeUnit.SECONDS);
        assertEquals(List.of(1, 2, 3), seen);
        assertEquals(0, loop.scheduled());
    }

    @Test
    void callRunsAfterWhatWasPostedBeforeAndSeesItsEffect() {
        ManualControlLoop loop = new ManualControlLoop();
        int[] state = {0};
        loop.execute(() -> state[0] = 41);
        assertEquals(42, loop.call(() -> ++state[0], 1, TimeUnit.SECONDS));
        loop.close();
        assertThrows(IllegalStateException.class, () -> loop.call(() -> 1, 1, TimeUnit.SECONDS));
        loop.execute(() -> state[0] = 0);
        assertEquals(0, loop.runPending());
    }

    @Test
    void aThreadLoopRunsTasksOnItsThreadAndReportsFailuresWithoutDying() throws Exception {
        List<String> failures = new CopyOnWriteArrayList<>();
        try (ThreadControlLoop loop = new ThreadControlLoop("test-loop", (m, t) -> failures.add(m + ": " + t.getMessage()))) {
            loop.execute(() -> {
                throw new IllegalStateException("boom");
            });
            String thread = loop.call(() -> Thread.currentThread().getName(), 10, TimeUnit.SECONDS);
            assertEquals("test-loop", thread);
            assertEquals(List.of("test-loop: unexpected failure in a control task: boom"), failures);
            assertFalse(loop.inLoop());
            assertTrue(loop.call(loop::inLoop, 10, TimeUnit.SECONDS));
            // call() from the loop itself runs at once instead of waiting for itself.
            assertEquals(7, loop.call(() -> loop.call(() -> 7, 1, TimeUnit.SECONDS), 10, TimeUnit.SECONDS));
            IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                    () -> loop.call(() -> {
                        throw new IllegalArgumentException("bad");
                    }, 10, TimeUnit.SECONDS));
            assertEquals("bad", thrown.getMessage());
        }
    }

    @Test
    void aThreadLoopTimerFiresAndAClosedLoopRefusesCallsAndDropsWork() throws Exception {
        ThreadControlLoop loop = new ThreadControlLoop("test-timer", FailureHandler.JAVA_LOGGING);
        CountDownLatch fired = new CountDownLatch(1);
        loop.schedule(fired::countDown, 1, TimeUnit.MILLISECONDS);
        assertTrue(fired.await(10, TimeUnit.SECONDS));
        loop.close();
        assertTrue(loop.awaitTermination(10, TimeUnit.SECONDS));
        assertTrue(loop.isClosed());
        assertSame(Cancellable.NONE, loop.schedule(() -> {}, 1, TimeUnit.SECONDS));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> loop.call(() -> 1, 1, TimeUnit.SECONDS));
        assertEquals("test-timer is closed", e.getMessage());
        assertTrue(loop.submit(() -> 1).toCompletableFuture().isCompletedExceptionally());
    }
}
