package ipoib.sa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.McMemberRecord;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SaException;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.SaHeader;
import ipoib.codec.mad.SaMad;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The SA client's retransmissions and timeouts on its control loop's clock (IBA 13.4.6.4: an
 * unanswered request is sent again with the same TID), moved by hand.
 */
class SaClientTimersTest {

    /** An SA that never answers: it records what the client sends. */
    private static final class SilentSa implements MadTransport {
        final List<SaMad> sent = new CopyOnWriteArrayList<>();
        volatile Consumer<ByteBuffer> receiver;

        @Override
        public void send(ByteBuffer mad) {
            byte[] bytes = new byte[MAD_LENGTH];
            mad.duplicate().get(bytes);
            try {
                sent.add(SaMad.decode(MemorySegment.ofArray(bytes), 0));
            } catch (DecodeException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public void setReceiver(Consumer<ByteBuffer> receiver) {
            this.receiver = receiver;
        }
    }

    private static final Gid SELF = Gid.parse("fe80::2:c903:0:1");
    private static final Gid PEER = Gid.parse("fe80::2:c903:0:2");

    @Test
    void anUnansweredRequestIsSentAgainAfterEachTimeoutAndFailsAfterTheLastAttempt() {
        ManualControlLoop loop = new ManualControlLoop();
        SilentSa sa = new SilentSa();
        try (SaClient client = new SaClient(sa, loop, 1_000, 3, 0)) {
            CompletableFuture<PathRecord> path = client.pathRecord(SELF, PEER, PKey.DEFAULT).toCompletableFuture();
            assertEquals(1, sa.sent.size());

            loop.advance(999, TimeUnit.MILLISECONDS);
            assertEquals(1, sa.sent.size(), "not before the timeout");
            loop.advance(1, TimeUnit.MILLISECONDS);
            assertEquals(2, sa.sent.size(), "sent again at the timeout");
            assertEquals(sa.sent.get(0).header().transactionId(), sa.sent.get(1).header().transactionId(),
                    "a retransmission keeps its TID");

            loop.advance(1_000, TimeUnit.MILLISECONDS);
            assertEquals(3, sa.sent.size());
            assertFalse(path.isDone());
            loop.advance(1_000, TimeUnit.MILLISECONDS);
            assertEquals(3, sa.sent.size(), "three attempts, no fourth");
            ExecutionException e = assertThrows(ExecutionException.class, path::get);
            assertTrue(assertInstanceOf(SaException.class, e.getCause()).isTimeout(), e.getCause().getMessage());
            assertEquals(2L, client.statistics().get("retransmitted"));
            assertEquals(1L, client.statistics().get("timed_out"));
            assertEquals(0L, client.statistics().get("pending"));
            assertEquals(0, loop.scheduled(), "no timer left");
        }
    }

    @Test
    void aRequestWhoseLoopIsClosedFailsAtOnceInsteadOfWaitingForATimerThatNeverFires() {
        ManualControlLoop loop = new ManualControlLoop();
        loop.close();
        try (SaClient client = new SaClient(new SilentSa(), loop, 1_000, 3, 0)) {
            CompletableFuture<PathRecord> path = client.pathRecord(SELF, PEER, PKey.DEFAULT).toCompletableFuture();
            ExecutionException e = assertThrows(ExecutionException.class, path::get);
            assertTrue(e.getCause().getMessage().contains("stopping"), e.getCause().getMessage());
            assertEquals(1L, client.statistics().get("not_sent"));
        }
    }

    /**
     * A segment of an RMPP answer restarts the transfer's stall timer; when the owner has closed
     * the loop meanwhile no timer can run, so the request ends then rather than never.
     */
    @Test
    void anRmppTransferThatArrivesAfterTheLoopClosedEndsTheRequest() {
        ManualControlLoop loop = new ManualControlLoop();
        SilentSa sa = new SilentSa();
        try (SaClient client = new SaClient(sa, loop, 1_000, 3, 0, 1)) {
            CompletableFuture<List<McMemberRecord>> table = client.groups().toCompletableFuture();
            SaMad request = sa.sent.get(0);
            loop.close();

            MemorySegment header = MemorySegment.ofArray(new byte[SaMad.LENGTH]);
            request.response(0).withSa(new SaHeader(0, SaMcMemberRecord.TABLE_STRIDE / 8, 0)).encode(header, 0);
            byte[] first = new RmppSender(header, new byte[560], 3).start().mads().get(0); // 1 of 3 segments
            sa.receiver.accept(ByteBuffer.wrap(first));

            assertTrue(table.isCompletedExceptionally(), "the transfer cannot be timed: the request ends");
            ExecutionException e = assertThrows(ExecutionException.class, table::get);
            assertTrue(e.getCause().getMessage().contains("stopping"), e.getCause().getMessage());
            assertEquals(0L, client.statistics().get("pending"));
        }
    }

    /**
     * The round trip is timed on the loop's clock from the first send to the answer, so a
     * retransmitted request counts the wait the caller had: 1.3 s, in the bucket up to 2.5 s.
     */
    @Test
    void theRoundTripIsTimedFromTheFirstSendToTheAnswerOnTheLoopsClock() {
        ManualControlLoop loop = new ManualControlLoop();
        SilentSa sa = new SilentSa();
        try (SaClient client = new SaClient(sa, loop, 1_000, 3, 0)) {
            assertEquals(0, client.roundTrips().count());
            CompletableFuture<PathRecord> path = client.pathRecord(SELF, PEER, PKey.DEFAULT).toCompletableFuture();
            loop.advance(1_300, TimeUnit.MILLISECONDS); // one retransmission at 1 s
            assertEquals(2, sa.sent.size());
            MemorySegment answer = MemorySegment.ofArray(new byte[SaMad.LENGTH]);
            sa.sent.get(0).response(0x0001).encode(answer, 0); // status busy: an answer all the same
            sa.receiver.accept(ByteBuffer.wrap(answer.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
            assertTrue(path.isCompletedExceptionally());
            var h = client.roundTrips();
            double[] bounds = h.upperBounds();
            long[] buckets = h.bucketCounts();
            assertEquals(1, h.count());
            assertEquals(1.3, h.sum(), 1e-9);
            int at = java.util.Arrays.binarySearch(bounds, 2.5);
            assertEquals(1, buckets[at], "1.3 s is above 1 s and at most 2.5 s: " + java.util.Arrays.toString(buckets));
            assertEquals(0, buckets[at - 1]);
        }
    }
}
