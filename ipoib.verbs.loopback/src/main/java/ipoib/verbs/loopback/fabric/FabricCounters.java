package ipoib.verbs.loopback.fabric;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Packet counters of the whole fabric: delivered, sent, and every drop by reason. */
public final class FabricCounters {
    private final LongAdder sent = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder duplicated = new LongAdder();
    private final LongAdder delayed = new LongAdder();
    private final LongAdder lengthErrors = new LongAdder();
    private final LongAdder[] drops = new LongAdder[DropReason.values().length];

    FabricCounters() {
        for (int i = 0; i < drops.length; i++) {
            drops[i] = new LongAdder();
        }
    }

    void countSent() {
        sent.increment();
    }

    void countDelivered() {
        delivered.increment();
    }

    void duplicated() {
        duplicated.increment();
    }

    void delayed() {
        delayed.increment();
    }

    void lengthError() {
        lengthErrors.increment();
    }

    void drop(DropReason reason) {
        drops[reason.ordinal()].increment();
    }

    public long drops(DropReason reason) {
        return drops[reason.ordinal()].sum();
    }

    public long delivered() {
        return delivered.sum();
    }

    public long sentPackets() {
        return sent.sum();
    }

    /** Every counter by name, in a stable order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("sent", sent.sum());
        out.put("delivered", delivered.sum());
        out.put("duplicated", duplicated.sum());
        out.put("delayed", delayed.sum());
        out.put("send_length_errors", lengthErrors.sum());
        Map<DropReason, Long> byReason = new EnumMap<>(DropReason.class);
        for (DropReason r : DropReason.values()) {
            byReason.put(r, drops(r));
            out.put("drop_" + r.counterName(), drops(r));
        }
        return out;
    }
}
