package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.WorkCompletions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lock-free completion ring under several producers and a parking consumer: every
 * completion arrives exactly once, each producer's in its order, none is lost to a missed
 * wake-up, and a full ring refuses instead of overwriting.
 */
class CompletionQueueConcurrencyTest {
    private static final int PRODUCERS = 4;
    private static final int PER_PRODUCER = 50_000;

    @Test
    void everyCompletionArrivesOnceAndInEachProducersOrder() throws Exception {
        LoopCompletionQueue cq = new LoopCompletionQueue(256);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int producer = p;
            Thread t = new Thread(() -> {
                for (int i = 0; i < PER_PRODUCER; i++) {
                    long id = (long) producer << 32 | i;
                    while (!cq.push(id, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, i, 0, producer, 0, 0,
                            0, false)) {
                        Thread.onSpinWait();
                    }
                }
            });
            producers.add(t);
            t.start();
        }
        int[] next = new int[PRODUCERS];
        WorkCompletions batch = new WorkCompletions(64);
        int received = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received < PRODUCERS * PER_PRODUCER) {
            assertTrue(System.nanoTime() < deadline, "received only " + received);
            int n = cq.poll(batch);
            if (n == 0) {
                // Parks when the producers pause: a missed wake-up would stall until the timeout.
                cq.await(1, TimeUnit.SECONDS);
                continue;
            }
            for (int i = 0; i < n; i++) {
                long id = batch.workRequestId(i);
                int producer = (int) (id >>> 32);
                assertEquals(next[producer], (int) id, "producer " + producer + " in order");
                assertEquals(producer, batch.sourceQpn(i));
                next[producer]++;
            }
            received += n;
        }
        for (Thread t : producers) {
            t.join();
        }
        assertEquals(0, cq.poll(batch));
    }

    @Test
    void aFullRingRefusesAndAClosedOneTooAndAwaitTimesOut() throws Exception {
        LoopCompletionQueue cq = new LoopCompletionQueue(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(cq.push(i, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_SEND, 0, 0, 0, 0, 0, 0, false));
        }
        assertFalse(cq.hasRoom());
        assertFalse(cq.push(9, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_SEND, 0, 0, 0, 0, 0, 0, false));
        WorkCompletions batch = new WorkCompletions(2);
        assertEquals(2, cq.poll(batch));
        assertEquals(0, batch.workRequestId(0));
        assertEquals(2, cq.poll(batch));
        assertEquals(3, batch.workRequestId(1));
        assertFalse(cq.await(20, TimeUnit.MILLISECONDS), "nothing to wait for");
        cq.wakeup();
        assertFalse(cq.await(5, TimeUnit.SECONDS), "a wakeup ends the wait at once");
        cq.close();
        assertFalse(cq.push(5, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_SEND, 0, 0, 0, 0, 0, 0, false));
    }
}
