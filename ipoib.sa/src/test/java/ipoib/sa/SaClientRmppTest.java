package ipoib.sa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.McMemberRecord;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SaException;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.RmppHeader;
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
 * The SA client's RMPP receive timers on a manual clock: while segments arrive the request is not
 * sent again; a transfer that stalls is aborted with ABORT 118 (total time too long) after
 * {@link SaClient#RMPP_STALL_MILLIS} and the request fails as a timeout.
 */
class SaClientRmppTest {

    /** An SA that answers a GetTable with an RMPP transfer of 3 segments and loses the third. */
    private static final class StallingSa implements MadTransport {
        final List<SaMad> fromClient = new CopyOnWriteArrayList<>();
        volatile Consumer<ByteBuffer> receiver;
        RmppSender sender;

        @Override
        public void send(ByteBuffer mad) {
            byte[] bytes = new byte[MAD_LENGTH];
            mad.duplicate().get(bytes);
            MemorySegment in = MemorySegment.ofArray(bytes);
            SaMad m;
            try {
                m = SaMad.decode(in, 0);
            } catch (DecodeException e) {
                throw new AssertionError(e);
            }
            fromClient.add(m);
            List<byte[]> out;
            if (m.rmpp().active()) {
                out = sender.onControl(m.rmpp(), in).mads();
            } else if (sender == null) {
                MemorySegment header = MemorySegment.ofArray(new byte[MAD_LENGTH]);
                m.response(0).withSa(new SaHeader(0, SaMcMemberRecord.TABLE_STRIDE / 8, 0)).encode(header, 0);
                sender = new RmppSender(header, new byte[560], 3); // 10 records, 3 segments
                out = sender.start().mads();
            } else {
                out = List.of(); // the request again: the transfer is under way
            }
            for (byte[] segment : out) {
                if (segment[SaMad.RMPP_OFFSET + 7] != 3) { // segment 3 is lost
                    receiver.accept(ByteBuffer.wrap(segment));
                }
            }
        }

        @Override
        public void setReceiver(Consumer<ByteBuffer> receiver) {
            this.receiver = receiver;
        }
    }

    @Test
    void aStalledTransferIsAbortedAfterFortySecondsAndTheRequestFails() throws Exception {
        ManualControlLoop clock = new ManualControlLoop();
        StallingSa sa = new StallingSa();
        try (SaClient client = new SaClient(sa, clock, 500, 3, 1, 1)) {
            CompletableFuture<List<McMemberRecord>> table = client.groups().toCompletableFuture();
            // Window 1: segment 1, ACK; segment 2, ACK; segment 3 never comes.
            assertEquals(3, sa.fromClient.size(), "the GetTable and two ACKs: " + sa.fromClient);
            assertEquals(new RmppHeader(1, RmppHeader.TYPE_ACK, 0, RmppHeader.FLAG_ACTIVE, 0, 2, 3),
                    sa.fromClient.get(2).rmpp());

            clock.advance(5_000, TimeUnit.MILLISECONDS);
            assertEquals(3, sa.fromClient.size(), "the request is not sent again while its answer is coming");
            assertFalse(table.isDone());

            clock.advance(SaClient.RMPP_STALL_MILLIS, TimeUnit.MILLISECONDS);
            SaMad abort = sa.fromClient.get(sa.fromClient.size() - 1);
            assertEquals(new RmppHeader(1, RmppHeader.TYPE_ABORT, 0, RmppHeader.FLAG_ACTIVE,
                    RmppHeader.STATUS_TOTAL_TIME_TOO_LONG, 0, 0), abort.rmpp());
            assertEquals(MadMethod.GET_TABLE, abort.header().method());
            assertTrue(table.isCompletedExceptionally());
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, table::get);
            SaException failure = assertInstanceOf(SaException.class, e.getCause());
            assertTrue(failure.isTimeout(), failure.getMessage());
            assertTrue(failure.getMessage().contains("stalled after segment 2"), failure.getMessage());
            assertEquals(1L, client.statistics().get("rmpp_aborted"));
            assertEquals(0, clock.scheduled(), "no timer left");
        }
    }
}
