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
        fourProducersAndOnePoller(new LoopCompletionQueue(256));
    }

    /**
     * Polls {@value #PER_PRODUCER} completions of each producer (its number in the work request
     * ID's high half and as the source QPN, its sequence in the low half), parking when there are
     * none (a missed wake-up stalls until the timeout), and checks each producer's order.
     *
     * @return the batch, for a last poll
     */
    private static WorkCompletions consumeInEachProducersOrder(LoopCompletionQueue cq, int producers)
            throws InterruptedException {
        int[] next = new int[producers];
        WorkCompletions batch = new WorkCompletions(64);
        int received = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received < producers * PER_PRODUCER) {
            assertTrue(System.nanoTime() < deadline, "received only " + received);
            int n = cq.poll(batch);
            if (n == 0) {
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
        return batch;
    }

    /** A single-threaded queue (no poll lock) under one poller fares the same. */
    @Test
    void aSingleThreadedQueueUnderOnePollerToo() throws Exception {
        fourProducersAndOnePoller(new LoopCompletionQueue(256, true));
    }

    /**
     * A poller on a virtual thread (as the appliance's receive loops), whose wait yields the core
     * with sched_yield(2) between spinning and parking, fares the same.
     */
    @Test
    void aPollerOnAVirtualThreadToo() throws Exception {
        Throwable[] failure = new Throwable[1];
        Thread poller = Thread.ofVirtual().start(() -> {
            try {
                fourProducersAndOnePoller(new LoopCompletionQueue(256));
            } catch (Throwable t) {
                failure[0] = t;
            }
        });
        assertTrue(poller.join(java.time.Duration.ofSeconds(60)), "the virtual poller ended");
        if (failure[0] != null) {
            throw new AssertionError(failure[0]);
        }
    }

    private static void fourProducersAndOnePoller(LoopCompletionQueue cq) throws Exception {
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
        WorkCompletions batch = consumeInEachProducersOrder(cq, PRODUCERS);
        for (Thread t : producers) {
            t.join();
        }
        assertEquals(0, cq.poll(batch));
    }

    /**
     * The wake-up without a fence on the producer's side (the poller checks the tail after
     * announcing itself, the producer reads the waiter after its CAS on the tail): single
     * completions and claims of lists, published right after the poller announced that it parks
     * or racing with the announcement, each wake the poller at once. A missed wake-up would
     * leave it parked for the whole 10-second wait.
     */
    @Test
    void aParkingPollerIsWokenBySingleCompletionsAndByListsAlike() throws Exception {
        parkingPollerRounds(new LoopCompletionQueue(64), null);
    }

    /** A producer lock for tests: a {@link ipoib.runtime.SpinLock}. */
    private static ProducerLock lock() {
        ipoib.runtime.SpinLock lock = new ipoib.runtime.SpinLock();
        return new ProducerLock() {
            @Override
            public void lock() {
                lock.lock();
            }

            @Override
            public void unlock() {
                lock.unlock();
            }
        };
    }

    /**
     * A sole producer claims with a plain store and reads the waiter without a fence; the poller
     * announces under the producer's lock instead. Single completions and lists published right
     * at the announcement, or racing it, each wake the poller at once.
     */
    @Test
    void aSoleProducerUnderItsLockWakesAParkingPollerWithoutACas() throws Exception {
        LoopCompletionQueue cq = new LoopCompletionQueue(64);
        ProducerLock lock = lock();
        cq.bindProducer(lock);
        assertTrue(cq.claimsWithoutCas());
        int rounds = parkingPollerRounds(cq, lock);
        assertEquals(rounds, cq.claims(), "one claim per round, counted exactly with one producer");
    }

    /**
     * Rounds of 1..8 completions, each published just after the poller announced that it parks
     * or racing the announcement, and consumed before the next; a missed wake-up would leave the
     * poller parked for the whole 10-second wait. Under {@code lock} when given (a sole producer),
     * else single completions pushed and lists claimed with the CAS.
     *
     * @return the rounds
     */
    private static int parkingPollerRounds(LoopCompletionQueue cq, ProducerLock lock) throws Exception {
        int rounds = 600;
        java.util.concurrent.atomic.AtomicLong consumed = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread producer = new Thread(() -> {
            long produced = 0;
            for (int r = 0; r < rounds && failure.get() == null; r++) {
                int count = 1 + r % 8;
                if (r % 3 != 2) {
                    // Publish just after the poller announced itself (the wake path).
                    while (!cq.pollerAnnounced() && failure.get() == null) {
                        Thread.onSpinWait();
                    }
                } // else: race with the announcement
                if (lock != null) {
                    lock.lock();
                }
                try {
                    if (count == 1 && lock == null) {
                        assertTrue(cq.push(r, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, 0, 0, 0, 0, 0,
                                0, false));
                    } else {
                        long first = cq.claim(count);
                        assertTrue(first >= 0);
                        for (int k = 0; k < count; k++) {
                            cq.put(first + k, r, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, 0, 0, 0, 0,
                                    0, 0, false);
                        }
                        cq.wake();
                    }
                } finally {
                    if (lock != null) {
                        lock.unlock();
                    }
                }
                produced += count;
                long target = produced;
                while (consumed.get() < target && failure.get() == null) {
                    Thread.onSpinWait();
                }
            }
        });
        producer.start();
        WorkCompletions batch = new WorkCompletions(64);
        long expected = 0;
        for (int r = 0; r < rounds; r++) {
            expected += 1 + r % 8;
        }
        try {
            while (consumed.get() < expected) {
                int n = cq.poll(batch);
                if (n > 0) {
                    consumed.addAndGet(n);
                    continue;
                }
                long start = System.nanoTime();
                cq.await(10, TimeUnit.SECONDS);
                long waited = System.nanoTime() - start;
                assertTrue(waited < TimeUnit.SECONDS.toNanos(5), "a wake-up was missed: parked " + waited / 1_000_000
                        + " ms with " + consumed.get() + " of " + expected + " consumed");
            }
        } catch (Throwable t) {
            failure.set(t);
            throw t;
        } finally {
            producer.join(10_000);
        }
        assertEquals(expected, consumed.get());
        return rounds;
    }

    /**
     * A second producer binds while the first fills the queue without a CAS: from then on both
     * claim with the CAS, and every completion still arrives once, each producer's in order.
     */
    @Test
    void aSecondProducerTurnsClaimsBackToTheCasWhileTheFirstKeepsProducing() throws Exception {
        LoopCompletionQueue cq = new LoopCompletionQueue(256);
        ProducerLock first = lock();
        cq.bindProducer(first);
        java.util.concurrent.CountDownLatch firstStarted = new java.util.concurrent.CountDownLatch(1);
        Thread sole = new Thread(() -> {
            for (int i = 0; i < PER_PRODUCER; i++) {
                while (true) {
                    first.lock();
                    try {
                        if (cq.push(i, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, 0, 0, 0, 0, 0, 0,
                                false)) {
                            break;
                        }
                    } finally {
                        first.unlock();
                    }
                    Thread.onSpinWait();
                }
                if (i == 1000) {
                    firstStarted.countDown();
                }
            }
        });
        Thread second = new Thread(() -> {
            try {
                firstStarted.await();
            } catch (InterruptedException e) {
                return;
            }
            cq.bindProducer(null);
            for (int i = 0; i < PER_PRODUCER; i++) {
                while (!cq.push(1L << 32 | i, CompletionStatus.SUCCESS, WorkCompletions.OPCODE_RECEIVE, 0, 0, 1, 0, 0,
                        0, false)) {
                    Thread.onSpinWait();
                }
            }
        });
        sole.start();
        second.start();
        WorkCompletions batch = consumeInEachProducersOrder(cq, 2);
        sole.join();
        second.join();
        assertFalse(cq.claimsWithoutCas());
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

    @Test
    void everyFieldOfACompletionSurvivesTheSlotPacking() {
        LoopCompletionQueue cq = new LoopCompletionQueue(4);
        WorkCompletions batch = new WorkCompletions(4);
        for (CompletionStatus status : CompletionStatus.values()) {
            assertTrue(cq.push(-2L, status, WorkCompletions.OPCODE_RECEIVE, 0x7FFF_FFFF, 0xFF_FFFF, 0xFF_FFFE, 0xFFFF, 15,
                    0xFFFF, true));
            assertTrue(cq.push(Long.MAX_VALUE, status, WorkCompletions.OPCODE_SEND, 0, 0, 0, 0, 0, 0, false));
            assertEquals(2, cq.poll(batch));
            assertEquals(-2L, batch.workRequestId(0));
            assertEquals(status, batch.status(0));
            assertEquals(WorkCompletions.OPCODE_RECEIVE, batch.opcode(0));
            assertEquals(0x7FFF_FFFF, batch.byteLength(0));
            assertEquals(0xFF_FFFF, batch.queuePairNumber(0));
            assertEquals(0xFF_FFFE, batch.sourceQpn(0));
            assertEquals(0xFFFF, batch.sourceLid(0));
            assertEquals(15, batch.serviceLevel(0));
            assertEquals(0xFFFF, batch.pkeyIndex(0));
            assertTrue(batch.grhPresent(0));
            assertEquals(Long.MAX_VALUE, batch.workRequestId(1));
            assertEquals(WorkCompletions.OPCODE_SEND, batch.opcode(1));
            assertEquals(0, batch.byteLength(1));
            assertEquals(0, batch.sourceLid(1));
            assertFalse(batch.grhPresent(1));
        }
    }

    @Test
    void noTwoCompletionsShareACacheLineWhateverTheAlignment() {
        // 128-octet slots and at most 64 octets used at the start of each: the used part of one
        // slot ends at least 64 octets before the next slot's begins.
        assertTrue(LoopCompletionQueue.SLOT_LONGS * Long.BYTES >= 2 * 64);
        assertTrue(LoopCompletionQueue.USED_LONGS * Long.BYTES <= 64);
    }
}
