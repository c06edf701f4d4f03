package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCountersTest {

    @Test
    void everyThreadsCountsAreSummedAndKeptAfterTheThreadEnds() throws Exception {
        Counters counters = new Counters();
        counters.counter("before").increment();
        ThreadCounters perThread = new ThreadCounters(counters);
        int sent = perThread.counter("sent");
        int dropped = perThread.counter("dropped");
        counters.counter("after").add(7);
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                ThreadCounters.Cells cells = perThread.cells();
                assertTrue(cells.belongsTo(Thread.currentThread()));
                assertSame(cells, perThread.cells(), "one thread, one set of cells");
                for (int i = 0; i < 100_000; i++) {
                    cells.increment(sent);
                }
                cells.add(dropped, 3);
            }));
        }
        perThread.cells().increment(sent);
        assertFalse(perThread.cells().belongsTo(threads.get(0)), "the main thread's cells are not another's");
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(Map.of("before", 1L, "sent", 400_001L, "dropped", 12L, "after", 7L), counters.snapshot());
        assertEquals(List.of("before", "sent", "dropped", "after"), List.copyOf(counters.snapshot().keySet()),
                "in the order of creation");
        assertEquals(400_001L, counters.get("sent"), "the ended threads' counts are kept once folded");
        assertEquals(12L, perThread.sum(dropped));
    }

    @Test
    void countersAreNamedBeforeCountingBeginsAndOnlyOnce() {
        Counters counters = new Counters();
        ThreadCounters perThread = new ThreadCounters(counters);
        perThread.counter("sent");
        assertEquals("counter sent exists already",
                assertThrows(IllegalStateException.class, () -> new ThreadCounters(counters).counter("sent")).getMessage());
        assertEquals("counter sent is counted per thread",
                assertThrows(IllegalStateException.class, () -> counters.counter("sent")).getMessage());
        perThread.cells();
        assertEquals("counter late created after counting began",
                assertThrows(IllegalStateException.class, () -> perThread.counter("late")).getMessage());
    }

    @Test
    void countingAllocatesNothing() {
        ThreadCounters perThread = new ThreadCounters(new Counters());
        int sent = perThread.counter("sent");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 100_000; i++) {
            perThread.cells().increment(sent);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            perThread.cells().increment(sent);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1000, allocated + " octets allocated in 100,000 increments");
        assertEquals(200_000, perThread.sum(sent));
    }

    @Test
    void theCellsOfCountersLetGoAreNotKeptByTheThreadsThatCounted() {
        // This thread outlives the counters, as a resolver's thread outlives the provider it sent through.
        WeakReference<ThreadCounters.Cells> cells = cellsOfCountersLetGo();
        assertTrue(Collected.within(Duration.ofSeconds(10), cells),
                "the thread that counted still holds the cells (and through them their class loader)");
    }

    private static WeakReference<ThreadCounters.Cells> cellsOfCountersLetGo() {
        ThreadCounters perThread = new ThreadCounters(new Counters());
        int sent = perThread.counter("sent");
        ThreadCounters.Cells cells = perThread.cells();
        cells.increment(sent);
        return new WeakReference<>(cells);
    }
}
