package ipoib.sa;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.codec.DecodeException;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaHeader;
import ipoib.codec.mad.SaMad;
import ipoib.codec.mad.SaMcMemberRecord;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The RMPP sender and receiver (IBA 13.6) against the layouts Linux's mad_rmpp.c produces and
 * checks, and against each other over a lossy channel.
 */
class RmppTest {
    private static final long TID = 0x0003_0000_0000_003DL;

    /** The 56 header octets of a GetTableResp of MCMemberRecords. */
    private static MemorySegment answerHeader() {
        MemorySegment h = MemorySegment.ofArray(new byte[SaMad.LENGTH]);
        SaMad.request(MadMethod.GET_TABLE, TID, SaMcMemberRecord.ATTRIBUTE_ID, 0, 0).response(0)
                .withSa(new SaHeader(0, SaMcMemberRecord.TABLE_STRIDE / 8, 0)).encode(h, 0);
        return h;
    }

    private static byte[] payload(int length, long seed) {
        byte[] p = new byte[length];
        new SplittableRandom(seed).nextBytes(p);
        return p;
    }

    private static RmppHeader rmpp(byte[] mad) throws DecodeException {
        return RmppHeader.decode(MemorySegment.ofArray(mad), SaMad.RMPP_OFFSET);
    }

    @Test
    void sixtyRecordsAreSeventeenSegmentsWithLinuxsPayloadLengths() throws Exception {
        // mad_rmpp.c send_next_seg: first PayloadLength = segments x 220 - pad, last = 220 - pad;
        // 60 x 56 = 3360 octets in 17 segments of 200, pad 40: 3700 and 180.
        byte[] data = payload(60 * 56, 1);
        RmppSender sender = new RmppSender(answerHeader(), data, 3);
        assertEquals(17, sender.segments());
        RmppHeader first = rmpp(sender.segment(1));
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_DATA, 0, RmppHeader.FLAG_ACTIVE | RmppHeader.FLAG_FIRST, 0, 1,
                3700), first);
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_DATA, 0, RmppHeader.FLAG_ACTIVE, 0, 9, 0),
                rmpp(sender.segment(9)));
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_DATA, 0, RmppHeader.FLAG_ACTIVE | RmppHeader.FLAG_LAST, 0, 17,
                180), rmpp(sender.segment(17)));
        byte[] ninth = sender.segment(9);
        assertArrayEquals(Arrays.copyOfRange(data, 8 * 200, 9 * 200), Arrays.copyOfRange(ninth, 56, 256));
        assertEquals(0x92, ninth[3] & 0xFF, "GetTableResp in every segment");
        assertEquals(7, ninth[45], "AttributeOffset 7 words (56 octets) in every segment's SA header");
        assertEquals(1, sender.start().mads().size(), "the first window is segment 1 (init_newwin)");
    }

    @Test
    void anEmptyTableIsOneSegmentWithPayloadLengthTwenty() throws Exception {
        RmppSender sender = new RmppSender(answerHeader(), new byte[0], 3);
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_DATA, 0,
                RmppHeader.FLAG_ACTIVE | RmppHeader.FLAG_FIRST | RmppHeader.FLAG_LAST, 0, 1, 20), rmpp(sender.segment(1)));
    }

    @Test
    void theReceiverAcknowledgesTheFirstSegmentAndEachWindowAsLinuxDoes() throws Exception {
        RmppSender sender = new RmppSender(answerHeader(), payload(60 * 56, 2), 3);
        RmppReassembler receiver = new RmppReassembler(4, 1 << 20);
        RmppReassembler.Step s1 = receiver.accept(MemorySegment.ofArray(sender.segment(1)), rmpp(sender.segment(1)));
        // format_ack: the header with the R bit flipped (GetTable), type ACK, Active, SegmentNumber 1,
        // NewWindowLast 1 + window.
        assertNotNull(s1.reply());
        assertEquals(MadMethod.GET_TABLE, s1.reply()[3] & 0xFF);
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_ACK, 0, RmppHeader.FLAG_ACTIVE, 0, 1, 5), rmpp(s1.reply()));
        assertEquals(TID, MemorySegment.ofArray(s1.reply()).get(ValueLayout.JAVA_LONG_UNALIGNED
                .withOrder(java.nio.ByteOrder.BIG_ENDIAN), 8));
        for (int n = 2; n <= 4; n++) {
            assertNull(receiver.accept(MemorySegment.ofArray(sender.segment(n)), rmpp(sender.segment(n))).reply(),
                    "no ACK inside the window, segment " + n);
        }
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_ACK, 0, RmppHeader.FLAG_ACTIVE, 0, 5, 9),
                rmpp(receiver.accept(MemorySegment.ofArray(sender.segment(5)), rmpp(sender.segment(5))).reply()));
        assertNull(receiver.accept(MemorySegment.ofArray(sender.segment(7)), rmpp(sender.segment(7))).reply(),
                "a segment after a gap is dropped");
        receiver.accept(MemorySegment.ofArray(sender.segment(6)), rmpp(sender.segment(6)));
        RmppReassembler.Step heldNotAcked = receiver.accept(MemorySegment.ofArray(sender.segment(6)),
                rmpp(sender.segment(6)));
        assertTrue(heldNotAcked.duplicate());
        assertNull(heldNotAcked.reply(), "a repeat of a segment held but not acknowledged yet: no ACK (continue_rmpp)");
        RmppReassembler.Step again = receiver.accept(MemorySegment.ofArray(sender.segment(3)), rmpp(sender.segment(3)));
        assertTrue(again.duplicate());
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_ACK, 0, RmppHeader.FLAG_ACTIVE, 0, 6, 9), rmpp(again.reply()),
                "a repeated segment is acknowledged again with the last in sequence");
    }

    @Test
    void theReceiverRefusesWhatLinuxRefuses() throws Exception {
        RmppSender sender = new RmppSender(answerHeader(), payload(1000, 3), 3);
        byte[] first = sender.segment(1);

        byte[] version2 = first.clone();
        version2[SaMad.RMPP_OFFSET] = 2;
        assertAbort(new RmppReassembler(4, 1 << 20).accept(MemorySegment.ofArray(version2), rmpp(version2)),
                RmppHeader.STATUS_UNSUPPORTED_VERSION);

        byte[] noFirst = first.clone();
        noFirst[SaMad.RMPP_OFFSET + 2] = RmppHeader.FLAG_ACTIVE;
        assertAbort(new RmppReassembler(4, 1 << 20).accept(MemorySegment.ofArray(noFirst), rmpp(noFirst)),
                RmppHeader.STATUS_INCONSISTENT_FIRST);

        byte[] withStatus = first.clone();
        withStatus[SaMad.RMPP_OFFSET + 3] = 5;
        assertAbort(new RmppReassembler(4, 1 << 20).accept(MemorySegment.ofArray(withStatus), rmpp(withStatus)),
                RmppHeader.STATUS_ILLEGAL);

        RmppReassembler.Step tooBig = new RmppReassembler(4, 500).accept(MemorySegment.ofArray(first), rmpp(first));
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_STOP, 0, RmppHeader.FLAG_ACTIVE, 1, 0, 0), rmpp(tooBig.reply()));
        assertNotNull(tooBig.failure());

        RmppReassembler r = new RmppReassembler(8, 1 << 20);
        r.accept(MemorySegment.ofArray(first), rmpp(first));
        for (int n = 2; n < 5; n++) {
            r.accept(MemorySegment.ofArray(sender.segment(n)), rmpp(sender.segment(n)));
        }
        byte[] last = sender.segment(5);
        MemorySegment.ofArray(last).set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                SaMad.RMPP_OFFSET + 8, 100);
        assertAbort(r.accept(MemorySegment.ofArray(last), rmpp(last)), RmppHeader.STATUS_INCONSISTENT_LENGTH);
    }

    private static void assertAbort(RmppReassembler.Step step, int status) throws DecodeException {
        assertNotNull(step.failure());
        assertEquals(new RmppHeader(1, RmppHeader.TYPE_ABORT, 0, RmppHeader.FLAG_ACTIVE, status, 0, 0),
                rmpp(step.reply()), step.failure());
        assertEquals(MadMethod.GET_TABLE, step.reply()[3] & 0xFF, "the ABORT goes back as a GetTable");
    }

    @Test
    void theSenderRefusesBadAcksAndIgnoresOldOnes() throws Exception {
        RmppSender sender = new RmppSender(answerHeader(), payload(3000, 4), 3);
        sender.start();
        byte[] ack = RmppControl.build(MemorySegment.ofArray(sender.segment(1)), RmppHeader.TYPE_ACK, 0, 1, 4);
        assertEquals(3, sender.onControl(rmpp(ack), MemorySegment.ofArray(ack)).mads().size(), "segments 2..4");
        byte[] old = RmppControl.build(MemorySegment.ofArray(sender.segment(1)), RmppHeader.TYPE_ACK, 0, 1, 4);
        assertEquals(List.of(), sender.onControl(rmpp(old), MemorySegment.ofArray(old)).mads(), "a repeated ACK");

        byte[] small = RmppControl.build(MemorySegment.ofArray(sender.segment(1)), RmppHeader.TYPE_ACK, 0, 4, 3);
        RmppSender.Step w2s = sender.onControl(rmpp(small), MemorySegment.ofArray(small));
        assertEquals(RmppSender.State.ABORTED, w2s.state());
        assertEquals(RmppHeader.STATUS_WINDOW_TOO_SMALL, rmpp(w2s.mads().get(0)).status());
        assertEquals(0x92, w2s.mads().get(0)[3] & 0xFF, "the sender's ABORT is a GetTableResp");

        RmppSender other = new RmppSender(answerHeader(), payload(3000, 4), 3);
        other.start();
        byte[] beyond = RmppControl.build(MemorySegment.ofArray(other.segment(1)), RmppHeader.TYPE_ACK, 0, 2, 9);
        assertEquals(RmppHeader.STATUS_SEGMENT_TOO_BIG,
                rmpp(other.onControl(rmpp(beyond), MemorySegment.ofArray(beyond)).mads().get(0)).status(),
                "an ACK of a segment not sent yet");

        RmppSender stopped = new RmppSender(answerHeader(), payload(3000, 4), 3);
        stopped.start();
        byte[] stop = RmppControl.build(MemorySegment.ofArray(stopped.segment(1)), RmppHeader.TYPE_STOP, 1, 0, 0);
        RmppSender.Step s = stopped.onControl(rmpp(stop), MemorySegment.ofArray(stop));
        assertEquals(RmppSender.State.ABORTED, s.state());
        assertEquals(List.of(), s.mads(), "nothing more after a STOP");
        assertEquals(List.of(), stopped.onTimeout().mads());
    }

    /**
     * Sender and receiver over a channel that loses MADs (both ways) by a seeded pattern: the
     * sender's ACK timer ({@link RmppSender#onTimeout()}) fires whenever the channel is quiet. The
     * transfer ends with the receiver holding exactly the payload, or with an ABORT after the
     * sender's retries; never with other data.
     */
    @Property(tries = 300)
    void overALossyChannelTheReceiverGetsThePayloadOrTheTransferIsAborted(
            @ForAll @IntRange(min = 0, max = 6000) int length, @ForAll @IntRange(min = 1, max = 8) int window,
            @ForAll @IntRange(min = 0, max = 40) int lossPercent, @ForAll long seed) throws Exception {
        byte[] data = payload(length, seed);
        RmppSender sender = new RmppSender(answerHeader(), data, 3);
        RmppReassembler receiver = new RmppReassembler(window, 1 << 20);
        SplittableRandom loss = new SplittableRandom(seed ^ 0x5DEECE66DL);
        Deque<byte[]> toReceiver = new ArrayDeque<>(sender.start().mads());
        Deque<byte[]> toSender = new ArrayDeque<>();
        MemorySegment answer = null;
        String receiverFailure = null;
        for (int rounds = 0; rounds < 100_000 && sender.waiting(); rounds++) {
            if (!toReceiver.isEmpty()) {
                byte[] mad = toReceiver.poll();
                if (loss.nextInt(100) < lossPercent) {
                    continue;
                }
                RmppReassembler.Step step = receiver.accept(MemorySegment.ofArray(mad), rmpp(mad));
                if (step.reply() != null) {
                    toSender.add(step.reply());
                }
                if (step.answer() != null) {
                    answer = step.answer();
                }
                if (step.failure() != null) {
                    receiverFailure = step.failure();
                }
            } else if (!toSender.isEmpty()) {
                byte[] mad = toSender.poll();
                if (loss.nextInt(100) < lossPercent) {
                    continue;
                }
                toReceiver.addAll(sender.onControl(rmpp(mad), MemorySegment.ofArray(mad)).mads());
            } else {
                toReceiver.addAll(sender.onTimeout().mads());
            }
        }
        // What is still on its way arrives (or not) after the sender stopped: it changes nothing.
        while (!toReceiver.isEmpty()) {
            byte[] mad = toReceiver.poll();
            RmppReassembler.Step step = receiver.accept(MemorySegment.ofArray(mad), rmpp(mad));
            if (step.answer() != null) {
                answer = step.answer();
            }
        }
        assertTrue(!sender.waiting(), "the sender ended: " + sender.state());
        if (sender.state() == RmppSender.State.DONE) {
            assertNotNull(answer, "every segment acknowledged means the receiver has them all");
        }
        if (answer != null) {
            assertArrayEquals(data, answer.asSlice(SaMad.DATA_OFFSET, length).toArray(ValueLayout.JAVA_BYTE));
            assertTrue(answer.asSlice(SaMad.DATA_OFFSET + length).toArray(ValueLayout.JAVA_BYTE).length == 0
                    || isZero(answer.asSlice(SaMad.DATA_OFFSET + length).toArray(ValueLayout.JAVA_BYTE)));
        }
        assertNull(receiverFailure, "the receiver saw nothing wrong");
    }

    private static boolean isZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
