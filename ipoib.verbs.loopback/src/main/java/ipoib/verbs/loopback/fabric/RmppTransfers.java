package ipoib.verbs.loopback.fabric;

import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaMad;
import ipoib.sa.RmppSender;
import ipoib.runtime.Cancellable;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.logging.Logger;

/**
 * The emulated SA's RMPP sends (IBA 13.6.5.1): one {@link RmppSender} per answer in flight, keyed
 * by requester and TID; the ACKs, STOPs and ABORTs of the requesters go to it, its ACK timer
 * sends the window again. Every call runs on the SA's thread ({@code saThread}); timers fire
 * wherever the {@link Timers} run them and come back to that thread.
 *
 * <p>The ACK timeout is Linux's for a response (mad_rmpp.c send_next_seg: 2 seconds when the
 * send has no timeout, as OpenSM's answers have none) and the retries OpenSM's default
 * transaction retries (3, osm_subnet.c OSM_DEFAULT_RETRY_COUNT).
 */
final class RmppTransfers {
    private static final Logger LOG = Logger.getLogger(RmppTransfers.class.getName());
    static final long ACK_TIMEOUT_MILLIS = 2000;
    static final int RETRIES = 3;

    /** Where the ACK timers run: the SA's control loop (a manual one in tests). */
    @FunctionalInterface
    interface Timers {
        Cancellable schedule(Runnable task, long delayMillis);
    }

    private record Key(LoopPort port, long tid) {}

    private final class Transfer {
        final RmppSender sender;
        final Key key;
        Cancellable timer;
        /** The sender's retransmissions already added to the counter. */
        long retransmissionsCounted;
        final Set<Integer> lostOnce = new HashSet<>();
        final Set<Integer> acksLostOnce = new HashSet<>();
        final Set<Integer> acksLost;

        Transfer(Key key, RmppSender sender) {
            this.key = key;
            this.sender = sender;
            this.acksLost = faults.acksLost();
            lostOnce.addAll(faults.segmentsLostOnce());
            acksLostOnce.addAll(faults.acksLostOnce());
        }
    }

    private final Executor saThread;
    private final Timers timers;
    private final BiConsumer<LoopPort, byte[]> deliver;
    private final java.util.function.BooleanSupplier randomLoss;
    private final Map<Key, Transfer> active = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile RmppFaults faults = RmppFaults.NONE;
    private final LongAdder transfers = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder segmentsSent = new LongAdder();
    private final LongAdder retransmitted = new LongAdder();
    private final LongAdder acks = new LongAdder();
    private final LongAdder segmentsLost = new LongAdder();
    private final LongAdder acksLost = new LongAdder();
    private final LongAdder unmatched = new LongAdder();

    /**
     * @param randomLoss asked for every DATA segment: whether the {@code sa-rmpp-loss} fault loses it
     */
    RmppTransfers(Executor saThread, Timers timers, BiConsumer<LoopPort, byte[]> deliver,
                  java.util.function.BooleanSupplier randomLoss) {
        this.saThread = saThread;
        this.timers = timers;
        this.deliver = deliver;
        this.randomLoss = randomLoss;
    }

    void setFaults(RmppFaults faults) {
        this.faults = faults;
    }

    /** Starts sending {@code payload} with the answer header {@code header} (56 octets) to {@code to}. */
    void send(LoopPort to, MemorySegment header, byte[] payload) {
        long tid = header.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 8);
        Key key = new Key(to, tid);
        Transfer old = active.remove(key);
        if (old != null && old.timer != null) {
            old.timer.cancel(); // the request came again: the new answer replaces the old transfer
        }
        Transfer t = new Transfer(key, new RmppSender(header, payload, RETRIES));
        active.put(key, t);
        transfers.increment();
        apply(t, t.sender.start());
    }

    /** An ACK, STOP or ABORT of a requester. */
    void onControl(LoopPort from, SaMad mad, MemorySegment in) {
        Transfer t = active.get(new Key(from, mad.header().transactionId()));
        RmppHeader rmpp = mad.rmpp();
        if (rmpp.type() == RmppHeader.TYPE_ACK) {
            if (t != null && (t.acksLost.contains(rmpp.data1()) || t.acksLostOnce.remove(rmpp.data1()))) {
                acksLost.increment();
                return;
            }
            acks.increment();
        }
        if (t == null) {
            unmatched.increment(); // an ACK after the transfer ended (a repeated final ACK), or a stranger
            return;
        }
        apply(t, t.sender.onControl(rmpp, in));
    }

    private void onTimeout(Transfer t) {
        if (active.get(t.key) != t) {
            return;
        }
        apply(t, t.sender.onTimeout());
    }

    private void apply(Transfer t, RmppSender.Step step) {
        for (byte[] mad : step.mads()) {
            RmppHeader rmpp = rmppOf(mad);
            if (rmpp.type() == RmppHeader.TYPE_DATA) {
                segmentsSent.increment();
                if (t.lostOnce.remove(rmpp.data1()) || randomLoss.getAsBoolean()) {
                    segmentsLost.increment();
                    continue;
                }
            }
            deliver.accept(t.key.port(), mad);
        }
        retransmitted.add(t.sender.retransmitted() - t.retransmissionsCounted);
        t.retransmissionsCounted = t.sender.retransmitted();
        if (t.timer != null) {
            t.timer.cancel();
            t.timer = null;
        }
        switch (step.state()) {
            case WAITING -> t.timer = timers.schedule(() -> saThread.execute(() -> onTimeout(t)), ACK_TIMEOUT_MILLIS);
            case DONE -> {
                active.remove(t.key, t);
                completed.increment();
            }
            case ABORTED -> {
                active.remove(t.key, t);
                aborted.increment();
                // One line per aborted transfer, naming the rule, as for refused requests.
                LOG.info(() -> String.format("emulated SA ended the RMPP transfer of TID 0x%x to %s: %s (IBA 13.6.5.1; "
                        + "Linux mad_rmpp.c)", t.key.tid(), t.key.port(), step.reason()));
            }
        }
    }

    private static RmppHeader rmppOf(byte[] mad) {
        try {
            return RmppHeader.decode(MemorySegment.ofArray(mad), SaMad.RMPP_OFFSET);
        } catch (ipoib.codec.DecodeException e) {
            throw new IllegalStateException(e); // 256 octets always hold the header
        }
    }

    /** Transfers in flight (read on the SA thread or for statistics). */
    int inFlight() {
        return active.size();
    }

    /** The counters for {@code fabric:sa}. */
    Map<String, Long> statistics() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("RMPP transfers", transfers.sum());
        out.put("RMPP transfers completed", completed.sum());
        out.put("RMPP transfers aborted", aborted.sum());
        out.put("RMPP segments sent", segmentsSent.sum());
        out.put("RMPP segments retransmitted", retransmitted.sum());
        out.put("RMPP ACKs received", acks.sum());
        out.put("RMPP control MADs unmatched", unmatched.sum());
        out.put("RMPP segments lost (fault)", segmentsLost.sum());
        out.put("RMPP ACKs lost (fault)", acksLost.sum());
        return out;
    }

    /** Stops every timer; the transfers are forgotten. */
    void close() {
        for (Transfer t : List.copyOf(active.values())) {
            if (t.timer != null) {
                t.timer.cancel();
            }
        }
        active.clear();
    }
}
