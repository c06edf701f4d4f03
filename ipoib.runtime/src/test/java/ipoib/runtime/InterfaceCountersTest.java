package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Counters per interface beside their totals: events (adders) and the data path (per-thread cells). */
class InterfaceCountersTest {

    @Test
    void eventsCountPerInterfaceAndInTotal() {
        Counters totals = new Counters();
        InterfaceCounters counters = new InterfaceCounters(totals);
        InterfaceCounters.Counter sent = counters.counter("sent");
        InterfaceCounters.Counter dropped = counters.counter("dropped_full");
        sent.increment("ib0");
        sent.add("ib1", 3);
        dropped.increment(null);
        assertEquals(Map.of("sent", 4L, "dropped_full", 1L), totals.snapshot());
        assertEquals(Map.of("ib0", Map.of("sent", 1L, "dropped_full", 0L), "ib1", Map.of("sent", 3L, "dropped_full", 0L)),
                counters.byInterface(), "a count of no interface is in the total only");
        assertEquals(List.of("sent", "dropped_full"), List.copyOf(counters.byInterface().get("ib0").keySet()));
    }

    @Test
    void theDataPathCountsInEachThreadsCellsPerInterface() throws Exception {
        Counters totals = new Counters();
        InterfaceThreadCounters counters = new InterfaceThreadCounters(totals);
        int received = counters.counter("received");
        InterfaceThreadCounters.Local here = counters.local();
        here.of("ib0").increment(received);
        here.of("ib1").increment(received);
        here.of("ib1").increment(received);
        Thread other = Thread.ofPlatform().start(() -> counters.local().of("ib0").add(received, 5));
        other.join();
        here.of(null).increment(received);
        assertEquals(9, totals.get("received"), "every thread and interface, and the count of none");
        assertEquals(Map.of("ib0", Map.of("received", 6L), "ib1", Map.of("received", 2L)), counters.byInterface());
        assertThrows(IllegalStateException.class, () -> counters.counter("late"), "named before counting");
    }
}
