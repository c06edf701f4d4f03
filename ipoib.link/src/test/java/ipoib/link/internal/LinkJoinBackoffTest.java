package ipoib.link.internal;

import ipoib.verbs.loopback.fabric.FaultKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import ipoib.api.link.LinkState;
import ipoib.verbs.loopback.fabric.SaFaults;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The broadcast join's retries on the loop's clock, against Linux IPoIB's join backoff
 * (drivers/infiniband/ulp/ipoib/ipoib_multicast.c): a failed join is tried again after
 * {@code mcast->backoff} seconds, doubled after every failure up to IPOIB_MAX_BACKOFF_SECONDS (16,
 * ipoib.h) and set back to 1 by a successful join ({@code ipoib_mcast_join_complete}).
 */
class LinkJoinBackoffTest {
    final LinkFixture fixture = new LinkFixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    /** The SA loses every request: each attempt ends at the join timeout (1 s here). */
    void saLosesEverything() {
        fixture.subnet.subnetAdministrator().setFaults(SaFaults.NONE.with(FaultKind.SA_DROP, 100));
    }

    /** Advances through {@code attempts} failed attempts and returns the waits the link announced. */
    List<String> failedAttempts(LinkEngine a, int attempts) {
        List<String> waits = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            String before = a.stateReason();
            fixture.loop.advance(1000, TimeUnit.MILLISECONDS); // the join timeout
            String reason = a.stateReason();
            assertEquals(LinkState.JOINING, a.state());
            assertNotEquals(before, reason, "attempt " + (i + 1) + " failed at its timeout");
            String wait = reason.substring(reason.indexOf("retrying in ") + "retrying in ".length());
            waits.add(wait);
            long millis = (long) (Double.parseDouble(wait.replace(" s", "")) * 1000);
            fixture.loop.advance(millis - 1, TimeUnit.MILLISECONDS);
            assertEquals(reason, a.stateReason(), "no new attempt before the backoff has passed");
            fixture.loop.advance(1, TimeUnit.MILLISECONDS); // the next attempt starts
            assertEquals("joining the broadcast group", a.stateReason());
        }
        return waits;
    }

    @Test
    void aFailingJoinWaitsOneSecondDoublingToSixteenAndStaysThere() {
        saLosesEverything();
        LinkEngine a = fixture.engine(LinkFixture.config("a", "loop0"));
        a.providerAvailable(fixture.subnet);
        fixture.loop.runPending();
        assertEquals("joining the broadcast group", a.stateReason());
        assertEquals(List.of("1.0 s", "2.0 s", "4.0 s", "8.0 s", "16.0 s", "16.0 s", "16.0 s"), failedAttempts(a, 7));
    }

    @Test
    void aSuccessfulJoinStartsTheBackoffAgainAtOneSecond() {
        saLosesEverything();
        LinkEngine a = fixture.engine(LinkFixture.config("a", "loop0"));
        a.providerAvailable(fixture.subnet);
        fixture.loop.runPending();
        assertEquals(List.of("1.0 s", "2.0 s", "4.0 s"), failedAttempts(a, 3));
        fixture.subnet.subnetAdministrator().setFaults(SaFaults.NONE);
        fixture.until("a UP once the SA answers", () -> a.state() == LinkState.UP);

        var port = fixture.subnet.fabric().port("loop0", 1);
        fixture.subnet.fabric().portDown(port);
        fixture.until("a DOWN with its port", () -> a.state() == LinkState.DOWN);
        saLosesEverything();
        fixture.subnet.fabric().portUp(port);
        fixture.until("a joining again", () -> a.state() == LinkState.JOINING);
        assertEquals(List.of("1.0 s", "2.0 s"), failedAttempts(a, 2));
    }
}
