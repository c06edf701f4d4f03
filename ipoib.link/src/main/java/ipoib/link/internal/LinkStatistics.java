package ipoib.link.internal;

import ipoib.api.link.LinkCounters;
import ipoib.api.link.TransmitResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The counters of one link; adders so that senders and the receive thread never contend. */
final class LinkStatistics {
    final LongAdder rxPackets = new LongAdder();
    final LongAdder rxBytes = new LongAdder();
    final LongAdder rxMulticast = new LongAdder();
    final LongAdder rxDroppedNoHandler = new LongAdder();
    final LongAdder rxDroppedMalformed = new LongAdder();
    final LongAdder rxDroppedOwn = new LongAdder();
    final LongAdder rxErrors = new LongAdder();
    final LongAdder txPackets = new LongAdder();
    final LongAdder txBytes = new LongAdder();
    final LongAdder txMulticast = new LongAdder();
    final LongAdder txErrors = new LongAdder();
    final LongAdder txStuck = new LongAdder();
    final LongAdder handlerErrors = new LongAdder();
    private final LongAdder[] txDrops = new LongAdder[TransmitResult.values().length];

    LinkStatistics() {
        for (int i = 0; i < txDrops.length; i++) {
            txDrops[i] = new LongAdder();
        }
    }

    /** Counts a transmit result that is a drop, and returns it. */
    TransmitResult drop(TransmitResult result) {
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

    LinkCounters snapshot() {
        return new LinkCounters(rxPackets.sum(), rxBytes.sum(), rxMulticast.sum(), rxDroppedNoHandler.sum(),
                rxDroppedMalformed.sum(), rxErrors.sum(), txPackets.sum(), txBytes.sum(), txMulticast.sum(),
                txDropped(), txErrors.sum(), handlerErrors.sum());
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
