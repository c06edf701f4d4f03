package ipoib.link.internal;

import ipoib.api.link.LinkCounters;
import ipoib.api.link.TransmitResult;
import ipoib.runtime.CountCells;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one link; adders so that senders and the receive thread never contend. The
 * datagram path's per-frame packet and octet counts of the current UP period are in
 * {@link CountCells} instead (the receive thread's own; the UD sender's, written under its
 * lock), summed with the adders on read and folded into them when the period ends.
 */
public final class LinkStatistics {
    /** Counters of a {@link CountCells} of {@link #openRx}/{@link #openTx}. */
    static final int PACKETS = 0;
    static final int BYTES = 1;
    public final LongAdder rxPackets = new LongAdder();
    public final LongAdder rxBytes = new LongAdder();
    final LongAdder rxMulticast = new LongAdder();
    public final LongAdder rxDroppedNoHandler = new LongAdder();
    public final LongAdder rxDroppedMalformed = new LongAdder();
    final LongAdder rxDroppedOwn = new LongAdder();
    public final LongAdder rxErrors = new LongAdder();
    public final LongAdder txPackets = new LongAdder();
    public final LongAdder txBytes = new LongAdder();
    final LongAdder txMulticast = new LongAdder();
    public final LongAdder txErrors = new LongAdder();
    final LongAdder txStuck = new LongAdder();
    final LongAdder handlerErrors = new LongAdder();
    private final LongAdder[] txDrops = new LongAdder[TransmitResult.values().length];

    private CountCells rx;
    private CountCells tx;

    /** The receive thread's counts for a new UP period. */
    synchronized CountCells openRx() {
        rx = new CountCells(2);
        return rx;
    }

    /** The UD sender's counts for a new UP period. */
    synchronized CountCells openTx() {
        tx = new CountCells(2);
        return tx;
    }

    /** The period's counts end in the adders (its writers have stopped, or their late counts are lost). */
    synchronized void close(CountCells cells) {
        if (cells == rx) {
            rxPackets.add(cells.get(PACKETS));
            rxBytes.add(cells.get(BYTES));
            rx = null;
        } else if (cells == tx) {
            txPackets.add(cells.get(PACKETS));
            txBytes.add(cells.get(BYTES));
            tx = null;
        }
    }

    private static long live(CountCells cells, int counter) {
        return cells == null ? 0 : cells.get(counter);
    }

    LinkStatistics() {
        for (int i = 0; i < txDrops.length; i++) {
            txDrops[i] = new LongAdder();
        }
    }

    /** Counts a transmit result that is a drop, and returns it. */
    public TransmitResult drop(TransmitResult result) {
        txDrops[result.ordinal()].increment();
        return result;
    }

    long txDropped() {
        long sum = 0;
        for (LongAdder a : txDrops) {
            sum += a.sum();
        }
        return sum;
    }

    synchronized LinkCounters snapshot() {
        return new LinkCounters(rxPackets.sum() + live(rx, PACKETS), rxBytes.sum() + live(rx, BYTES),
                rxMulticast.sum(), rxDroppedNoHandler.sum(), rxDroppedMalformed.sum(), rxErrors.sum(),
                txPackets.sum() + live(tx, PACKETS), txBytes.sum() + live(tx, BYTES), txMulticast.sum(), txDropped(),
                txErrors.sum(), handlerErrors.sum());
    }

    Map<String, Long> drops() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (TransmitResult r : TransmitResult.values()) {
            if (r.isDrop()) {
                out.put("tx_" + r.name().toLowerCase(java.util.Locale.ROOT), txDrops[r.ordinal()].sum());
            }
        }
        out.put("rx_dropped_no_handler", rxDroppedNoHandler.sum());
        out.put("rx_dropped_malformed", rxDroppedMalformed.sum());
        out.put("rx_dropped_own_multicast", rxDroppedOwn.sum());
        out.put("tx_stuck_buffers", txStuck.sum());
        return out;
    }
}
