package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.link.LinkCounters;
import ipoib.runtime.CountCells;
import org.junit.jupiter.api.Test;

/**
 * The per-frame counts of an UP period live in owner-written cells, summed with the link's
 * adders when read and folded into them when the period ends: nothing is lost or counted twice
 * across periods.
 */
class LinkStatisticsTest {

    @Test
    void aPeriodsCellsAreSummedWhileItRunsAndKeptAfterItEnds() {
        LinkStatistics stats = new LinkStatistics();
        CountCells rx = stats.openRx();
        CountCells tx = stats.openTx();
        rx.add(LinkStatistics.PACKETS, 3);
        rx.add(LinkStatistics.BYTES, 300);
        tx.add(LinkStatistics.PACKETS, 2);
        tx.add(LinkStatistics.BYTES, 128);
        stats.rxPackets.add(1); // connected mode counts into the adders directly
        LinkCounters during = stats.snapshot();
        assertEquals(4, during.rxPackets());
        assertEquals(300, during.rxBytes());
        assertEquals(2, during.txPackets());
        assertEquals(128, during.txBytes());

        stats.close(rx);
        stats.close(tx);
        stats.close(tx); // a second close of the same cells changes nothing
        LinkCounters down = stats.snapshot();
        assertEquals(4, down.rxPackets());
        assertEquals(300, down.rxBytes());
        assertEquals(2, down.txPackets());
        assertEquals(128, down.txBytes());

        CountCells rx2 = stats.openRx();
        rx2.add(LinkStatistics.PACKETS, 5);
        rx2.add(LinkStatistics.BYTES, 50);
        LinkCounters again = stats.snapshot();
        assertEquals(9, again.rxPackets(), "the new period's count on top of the earlier ones");
        assertEquals(350, again.rxBytes());
        assertEquals(2, again.txPackets());
    }
}
