package ipoib.verbs.loopback.fabric;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Packet counters of the whole fabric: delivered, sent, and every drop by reason. Sent and
 * delivered packets are counted per sending port (written on the data path by every packet) and
 * summed here when read; the rest are rare.
 */
public final class FabricCounters {
    private volatile List<LoopPort> ports = List.of();
    private final LongAdder duplicated = new LongAdder();
    private final LongAdder delayed = new LongAdder();
    private final LongAdder lengthErrors = new LongAdder();
    private final LongAdder rcSent = new LongAdder();
    private final LongAdder rcRetransmitted = new LongAdder();
    private final LongAdder rcTimeouts = new LongAdder();
    private final LongAdder rcSequenceNaks = new LongAdder();
    private final LongAdder rcRnrNaks = new LongAdder();
    private final LongAdder rcDuplicates = new LongAdder();
    private final LongAdder rcAcksLost = new LongAdder();
    private final LongAdder rcOutOfSequence = new LongAdder();
    private final LongAdder[] drops = new LongAdder[DropReason.values().length];
    /** Failed tasks of the fabric's events loop (counted by its failure handler). */
    private volatile java.util.function.LongSupplier eventFailures = () -> 0;

    FabricCounters() {
        for (int i = 0; i < drops.length; i++) {
            drops[i] = new LongAdder();
        }
    }

    void eventFailures(java.util.function.LongSupplier failures) {
        this.eventFailures = failures;
    }

    /** The ports whose counts are summed (set once the fabric has its devices). */
    void ports(List<LoopPort> all) {
        ports = List.copyOf(all);
    }

    /** An RC packet sent (a UD queue pair counts its own: {@link LoopQueuePair#countSent}). */
    void countSent(LoopPort from) {
        from.packets.cells().increment(LoopPort.SENT);
    }

    void countSent(LoopPort from, int packets) {
        from.packets.cells().add(LoopPort.SENT, packets);
    }

    /** An RC packet delivered. */
    void countDelivered(LoopPort from) {
        from.packets.cells().increment(LoopPort.DELIVERED);
    }

    void countDelivered(LoopPort from, int packets) {
        from.packets.cells().add(LoopPort.DELIVERED, packets);
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

    void rcSent() {
        rcSent.increment();
    }

    void rcSent(int packets) {
        rcSent.add(packets);
    }

    void countRcRetransmission() {
        rcRetransmitted.increment();
    }

    void rcTimeout() {
        rcTimeouts.increment();
    }

    void rcSequenceNak() {
        rcSequenceNaks.increment();
    }

    void rcRnrNak() {
        rcRnrNaks.increment();
    }

    void rcDuplicate() {
        rcDuplicates.increment();
    }

    void rcOutOfSequence() {
        rcOutOfSequence.increment();
    }

    void rcAckLost() {
        rcAcksLost.increment();
    }

    /** RC packets sent again after a NAK or an ACK timeout. */
    public long rcRetransmitted() {
        return rcRetransmitted.sum();
    }

    void drop(DropReason reason) {
        drops[reason.ordinal()].increment();
    }

    void drop(DropReason reason, int packets) {
        drops[reason.ordinal()].add(packets);
    }

    public long drops(DropReason reason) {
        return drops[reason.ordinal()].sum();
    }

    public long delivered() {
        long sum = 0;
        for (LoopPort p : ports) {
            sum += p.packets.sum(LoopPort.DELIVERED);
        }
        return sum;
    }

    public long sentPackets() {
        long sum = 0;
        for (LoopPort p : ports) {
            sum += p.packets.sum(LoopPort.SENT);
        }
        return sum;
    }

    /** Every counter by name, in a stable order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("sent", sentPackets());
        out.put("delivered", delivered());
        out.put("duplicated", duplicated.sum());
        out.put("delayed", delayed.sum());
        out.put("send_length_errors", lengthErrors.sum());
        out.put("rc_sent", rcSent.sum());
        out.put("rc_retransmitted", rcRetransmitted.sum());
        out.put("rc_ack_timeouts", rcTimeouts.sum());
        out.put("rc_sequence_naks", rcSequenceNaks.sum());
        out.put("rc_rnr_naks", rcRnrNaks.sum());
        out.put("rc_duplicates", rcDuplicates.sum());
        out.put("rc_acks_lost", rcAcksLost.sum());
        out.put("rc_out_of_sequence", rcOutOfSequence.sum());
        out.put("event_failures", eventFailures.getAsLong());
        Map<DropReason, Long> byReason = new EnumMap<>(DropReason.class);
        for (DropReason r : DropReason.values()) {
            byReason.put(r, drops(r));
            out.put("drop_" + r.counterName(), drops(r));
        }
        return out;
    }
}
