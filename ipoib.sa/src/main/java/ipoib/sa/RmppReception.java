package ipoib.sa;

import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaMad;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * The SA client's side of RMPP (IBA 13.6.5.2): one {@link RmppReassembler} per request whose
 * answer comes in segments, the ACKs, STOPs and ABORTs it sends back, the final ACK of the last
 * 64 completed transfers (sent again when the SA repeats a segment: our ACK was lost, Linux keeps
 * a completed transfer for that, mad_rmpp.c complete_rmpp), and the counters. Calls are
 * serialized on this object.
 */
final class RmppReception {
    /** What became of the request's answer. */
    sealed interface Outcome {}

    /** Segments keep coming: the request waits (its stall timer starts again). */
    record Continuing() implements Outcome {}

    /** The whole answer: the first segment's 56 header octets and every segment's data. */
    record Complete(MemorySegment answer) implements Outcome {}

    /** The transfer ended without the answer (an ABORT or STOP, ours or the SA's). */
    record Failed(String reason) implements Outcome {}

    /** No request waits for it; {@code answered} when it was a repeat of a completed transfer. */
    record NotPending(boolean answered) implements Outcome {}

    private static final int COMPLETED_KEPT = 64;

    private final Consumer<byte[]> send;
    private final int window;
    private final int maxPayload;
    private final Map<Integer, RmppReassembler> active = new HashMap<>();
    private final Map<Integer, byte[]> completed = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, byte[]> eldest) {
            return size() > COMPLETED_KEPT;
        }
    };
    private final LongAdder transfers = new LongAdder();
    private final LongAdder segments = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder aborted = new LongAdder();
    private final LongAdder tablesCut = new LongAdder();

    /**
     * @param send sends a MAD to the SA (failures are the sender's to swallow)
     * @param window segments acknowledged at once
     * @param maxPayload the largest answer taken
     */
    RmppReception(Consumer<byte[]> send, int window, int maxPayload) {
        this.send = send;
        this.window = window;
        this.maxPayload = maxPayload;
    }

    /** An RMPP MAD (Active, RMPPVersion not 0) for TID {@code tid}; {@code pending} when a request waits. */
    synchronized Outcome accept(int tid, boolean pending, SaMad mad, MemorySegment data) {
        boolean isData = mad.rmpp().type() == RmppHeader.TYPE_DATA;
        if (!pending) {
            byte[] ack = completed.get(tid);
            if (ack != null && isData) {
                duplicates.increment();
                send.accept(ack);
                return new NotPending(true);
            }
            return new NotPending(false);
        }
        RmppReassembler transfer = active.get(tid);
        if (transfer == null) {
            transfer = new RmppReassembler(window, maxPayload);
            active.put(tid, transfer);
            transfers.increment();
        }
        if (isData) {
            segments.increment();
        }
        RmppReassembler.Step step = transfer.accept(data, mad.rmpp());
        if (step.duplicate()) {
            duplicates.increment();
        }
        if (step.reply() != null) {
            send.accept(step.reply());
        }
        if (step.answer() != null) {
            active.remove(tid);
            completed.put(tid, step.reply());
            return new Complete(step.answer());
        }
        if (step.failure() != null) {
            active.remove(tid);
            aborted.increment();
            return new Failed(step.failure());
        }
        return new Continuing();
    }

    /** Whether segments of the answer to {@code tid} are arriving. */
    synchronized boolean inProgress(int tid) {
        return active.containsKey(tid);
    }

    /** The transfer stalled: ABORT 118 goes to the SA; returns what to say, null when none was active. */
    synchronized String abortStalled(int tid) {
        RmppReassembler transfer = active.remove(tid);
        if (transfer == null) {
            return null;
        }
        MemorySegment first = transfer.firstHeader();
        if (first != null) {
            send.accept(transfer.abortForTimeout(first));
        }
        aborted.increment();
        return "RMPP transfer stalled after segment " + transfer.lastInSequence() + ", ABORT "
                + RmppHeader.statusName(RmppHeader.STATUS_TOTAL_TIME_TOO_LONG) + " sent";
    }

    /** The request ended otherwise (closed, failed): its transfer is forgotten. */
    synchronized void forget(int tid) {
        active.remove(tid);
    }

    /** An unsegmented answer (RMPP Active, RMPPVersion 0) of which only the first MAD arrived. */
    void tableCut() {
        tablesCut.increment();
    }

    /** The counters, merged into the client's statistics. */
    Map<String, Long> statistics() {
        return Map.of("rmpp_transfers", transfers.sum(), "rmpp_segments", segments.sum(),
                "rmpp_duplicate_segments", duplicates.sum(), "rmpp_aborted", aborted.sum(),
                "tables_cut", tablesCut.sum());
    }

    /** Whether a MAD is for this reception: RMPP Active with a version (OpenSM's unsegmented answers have 0). */
    static boolean isSegmented(SaMad mad) {
        return mad.rmpp().active() && (mad.rmpp().version() != 0 || mad.rmpp().type() != 0);
    }

    /** Whether a MAD is OpenSM's unsegmented answer: RMPP Active, RMPPVersion 0, type 0. */
    static boolean isUnsegmented(SaMad mad) {
        return mad.rmpp().active() && !isSegmented(mad);
    }
}
