package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EventRingTest {

    @Test
    void keepsTheLastEventsAndCountsWhatItOverwrote() {
        EventRing ring = new EventRing();
        for (int i = 0; i < EventRing.CAPACITY + 10; i++) {
            ring.add("ipoib/link/UP", Map.of("link", "ib" + i), Instant.EPOCH);
        }
        List<EventRing.Entry> kept = ring.since(0);
        assertEquals(EventRing.CAPACITY, kept.size());
        assertEquals(10, kept.get(0).sequence());
        assertEquals("ib10", kept.get(0).properties().get("link"));
        assertEquals(10, ring.overwritten());
        assertEquals(2, ring.since(EventRing.CAPACITY + 8).size());
    }

    @Test
    void followersWaitForNewEvents() throws InterruptedException {
        EventRing ring = new EventRing();
        long next = ring.nextSequence();
        assertFalse(ring.awaitSince(next, 1, TimeUnit.MILLISECONDS));
        ring.add("ipoib/link/DOWN", Map.of("reason", "port down"), Instant.EPOCH);
        assertTrue(ring.awaitSince(next, 1, TimeUnit.SECONDS));
        assertEquals("1970-01-01T00:00:00Z  ipoib/link/DOWN  reason=port down", ring.since(next).get(0).line());
    }
}
