package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The bridge's reader hands what the kernel has queued to the link as one transmit burst (one
 * post list), as a qdisc hands a driver a batch with {@code xmit_more}: the burst ends at the
 * first read that finds nothing, at a read error, or when it is full.
 */
class KernelBurstTest {
    /** What the link saw: "begin", the packets' lengths, "end". */
    final List<String> seen = new ArrayList<>();
    final Deque<Integer> queued = new ArrayDeque<>();
    boolean linkTakesBursts = true;
    final LongAdder batched = new LongAdder();

    final KernelBurst burst = new KernelBurst(
            () -> {
                seen.add("begin");
                return linkTakesBursts;
            },
            () -> seen.add("end"),
            () -> queued.isEmpty() ? -1 : queued.poll(),
            n -> seen.add(Integer.toString(n)),
            batched);

    @Test
    void thePacketsQueuedBehindTheFirstGoInTheSameBurst() {
        queued.addAll(List.of(1280, 60));
        assertEquals(-1, burst.forward(1500), "ended by the read that found the device empty");
        assertEquals(List.of("begin", "1500", "1280", "60", "end"), seen);
        assertEquals(2, batched.sum(), "two packets rode behind the first");
    }

    @Test
    void aFullBurstIsPostedAndTheNextPacketsStartAnother() {
        for (int i = 1; i <= KernelBurst.MAX + 3; i++) {
            queued.add(100 + i);
        }
        assertEquals(0, burst.forward(100), "full: the reader reads again at once");
        assertEquals(KernelBurst.MAX + 2, seen.size(), "begin, MAX packets, end: " + seen);
        assertEquals("end", seen.get(seen.size() - 1));
        assertEquals(4, queued.size(), "the rest waits for the next burst");

        seen.clear();
        assertEquals(-1, burst.forward(queued.poll()));
        assertEquals(List.of("begin", "116", "117", "118", "119", "end"), seen);
    }

    @Test
    void aReadErrorEndsTheBurstAndIsReported() {
        queued.addAll(List.of(80, -2, 90));
        assertEquals(-2, burst.forward(70));
        assertEquals(List.of("begin", "70", "80", "end"), seen);
    }

    @Test
    void withoutABurstFromTheLinkThePacketsStillGoAndNothingIsPosted() {
        linkTakesBursts = false; // not UP, or another thread's burst is open
        queued.add(60);
        assertEquals(-1, burst.forward(60));
        assertEquals(List.of("begin", "60", "60"), seen, "no end without a begun burst");
    }

    @Test
    void aFailingForwardStillPostsWhatTheBurstHolds() {
        KernelBurst failing = new KernelBurst(() -> {
            seen.add("begin");
            return true;
        }, () -> seen.add("end"), () -> 60, n -> {
            throw new IllegalStateException("stack gone");
        }, batched);
        assertThrows(IllegalStateException.class, () -> failing.forward(60));
        assertEquals(List.of("begin", "end"), seen);
    }
}
