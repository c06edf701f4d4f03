package ipoib.verbs.loopback.fabric;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The RC traffic of one port: data packets it sent (first transmissions and retransmissions),
 * ACK timeouts of its requesters, and the ACKs and NAKs its responders sent back.
 */
public final class RcPortCounters {
    private final LongAdder packets = new LongAdder();
    private final LongAdder retransmitted = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder acks = new LongAdder();
    private final LongAdder naks = new LongAdder();
    private final LongAdder rnrNaks = new LongAdder();

    void packet() {
        packets.increment();
    }

    void packets(int n) {
        packets.add(n);
    }

    /** {@code n} packets of one message, each answered with an ACK (coalesced into one). */
    void acks(int n) {
        acks.add(n);
    }

    void retransmission() {
        retransmitted.increment();
    }

    void timeout() {
        timeouts.increment();
    }

    void answer(long ack) {
        switch (RcAck.kind(ack)) {
            case RcAck.ACK -> acks.increment();
            case RcAck.RNR_NAK -> rnrNaks.increment();
            default -> naks.increment();
        }
    }

    /** RC data packets sent, retransmissions included. */
    public long packets() {
        return packets.sum();
    }

    public long retransmitted() {
        return retransmitted.sum();
    }

    public long acks() {
        return acks.sum();
    }

    public long naks() {
        return naks.sum();
    }

    /** Whether the port carried any RC traffic. */
    public boolean any() {
        return packets.sum() + acks.sum() + naks.sum() + rnrNaks.sum() > 0;
    }

    /** Every counter by name, in a stable order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("packets", packets.sum());
        out.put("retransmitted", retransmitted.sum());
        out.put("ack_timeouts", timeouts.sum());
        out.put("acks", acks.sum());
        out.put("naks", naks.sum());
        out.put("rnr_naks", rnrNaks.sum());
        return out;
    }
}
