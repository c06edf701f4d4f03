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

    @Test
    void aRefusalStandsThroughItsWriteBackUntilAnotherConfigurationIsTaken() {
        board.accepted("ipoib.arp", Map.of("requests", 3, "retransmitMillis", 500));
        board.refused("ipoib.arp", Map.of("requests", 0, "retransmitMillis", 500), "bad requests", Map.of("requests", 3));
        board.accepted("ipoib.arp", Map.of("requests", 3, "retransmitMillis", 500));
        StandingRefusal standing = board.standing("ipoib.arp");
        assertEquals("bad requests", standing.refusal().why());
        assertEquals(Map.of("requests", 0), standing.refusedValues());
        assertEquals(Map.of("requests", 3), standing.inForceValues());
        assertEquals(java.util.List.of(standing), board.standing());

        board.accepted("ipoib.arp", Map.of("requests", 4, "retransmitMillis", 500));
        assertNull(board.standing("ipoib.arp"));
        assertEquals(java.util.List.of(), board.standing());
    }

    /** Nothing taken before the refusal (the defaults ran): what is taken next is its write-back. */
    @Test
    void withNothingTakenBeforeTheFirstConfigurationTakenAfterIsTheWriteBack() {
        board.refused("ipoib.nd", Map.of("autoconf", "2"), "bad autoconf", Map.of());
        assertEquals(Map.of("autoconf", "2"), board.standing("ipoib.nd").refusedValues());
        board.accepted("ipoib.nd", Map.of("autoconf", true));
        assertEquals(Map.of("autoconf", true), board.standing("ipoib.nd").inForceValues());
        board.accepted("ipoib.nd", Map.of("autoconf", false));
        assertNull(board.standing("ipoib.nd"));
    }

    /** What is kept per PID goes with its configuration: factory configurations come and go. */
    @Test
    void aDeletedConfigurationIsForgotten() {
        board.accepted("ipoib.link~a", Map.of("port", 1));
        board.refused("ipoib.link~a", Map.of("port", 9), "no port 9", Map.of("port", 1));
        @SuppressWarnings("unchecked")
        org.osgi.framework.ServiceReference<org.osgi.service.cm.ConfigurationAdmin> admin =
                (org.osgi.framework.ServiceReference<org.osgi.service.cm.ConfigurationAdmin>) java.lang.reflect.Proxy.newProxyInstance(
                        getClass().getClassLoader(), new Class<?>[] {org.osgi.framework.ServiceReference.class}, (p, m, a) -> null);
        org.osgi.service.cm.ConfigurationEvent deleted = new org.osgi.service.cm.ConfigurationEvent(admin,
                org.osgi.service.cm.ConfigurationEvent.CM_DELETED, "ipoib.link", "ipoib.link~a");
        board.configurationEvent(deleted);
        assertNull(board.standing("ipoib.link~a"));
        board.refused("ipoib.link~a", Map.of("port", 9), "no port 9", null);
        assertNull(board.standing("ipoib.link~a").inForce(), "what was taken before the deletion is gone too");
    }
}
