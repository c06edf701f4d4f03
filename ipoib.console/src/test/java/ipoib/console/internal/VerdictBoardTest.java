package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class VerdictBoardTest {

    private final VerdictBoard board = new VerdictBoard();

    @Test
    void theVerdictOnTheStoredValuesIsFoundThoughTheComponentWasGivenItsDefaultsToo() throws Exception {
        long mark = board.mark();
        board.accepted("ipoib.arp", Map.of("retransmitMillis", 500, "requests", 3));
        VerdictBoard.Verdict v = board.await("ipoib.arp", Map.of("retransmitMillis", 500, "service.pid", "ipoib.arp"), mark,
                Duration.ZERO);
        assertEquals(false, v.refused());
    }

    /** The write-back of the configuration in force follows a refusal at once: the refusal is still found. */
    @Test
    void aRefusalFollowedByTheWriteBackIsNotMissed() throws Exception {
        long mark = board.mark();
        board.refused("ipoib.link~a", Map.of("name", "shared"), "an interface named 'shared' exists", Map.of("device", "loop1"));
        board.accepted("ipoib.link~a", Map.of("device", "loop1"));
        VerdictBoard.Verdict v = board.await("ipoib.link~a", Map.of("name", "shared"), mark, Duration.ZERO);
        assertTrue(v.refused());
        assertEquals("an interface named 'shared' exists", v.why());
        assertEquals(Map.of("device", "loop1"), v.inForce());
    }

    @Test
    void verdictsBeforeTheMarkOrOnOtherValuesOrPidsDoNotCount() throws Exception {
        board.accepted("ipoib.arp", Map.of("retransmitMillis", 500));
        long mark = board.mark();
        board.accepted("ipoib.nd", Map.of("retransmitMillis", 500));
        board.accepted("ipoib.arp", Map.of("retransmitMillis", 700));
        assertNull(board.await("ipoib.arp", Map.of("retransmitMillis", 500), mark, Duration.ZERO));
    }

    @Test
    void aWaitEndsWhenTheVerdictComes() throws Exception {
        long mark = board.mark();
        CompletableFuture<VerdictBoard.Verdict> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return board.await("ipoib.mcast", Map.of("maxGroupsPerLink", 64), mark, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        board.accepted("ipoib.mcast", Map.of("maxGroupsPerLink", 64));
        assertEquals(false, waiting.get(30, TimeUnit.SECONDS).refused());
    }
}
