package ipoib.sa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.Gid;
import ipoib.api.Mgid;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.MadTransport;
import ipoib.codec.DecodeException;
import ipoib.codec.mad.InformInfo;
import ipoib.codec.mad.MadMethod;
import ipoib.codec.mad.Notice;
import ipoib.codec.mad.SaMad;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Reports (group traps) through the SA client: each one is acknowledged, even when the SA sends
 * it again because the acknowledgement came late, and handed to the subscriber once.
 */
class SaClientReportTest {

    /** A transport that answers InformInfo Sets and records what the client sends. */
    static final class ScriptedSa implements MadTransport {
        final List<SaMad> sent = new CopyOnWriteArrayList<>();
        volatile Consumer<ByteBuffer> receiver;

        @Override
        public void send(ByteBuffer mad) {
            byte[] bytes = new byte[MAD_LENGTH];
            mad.duplicate().get(bytes);
            MemorySegment segment = MemorySegment.ofArray(bytes);
            try {
                SaMad request = SaMad.decode(segment, 0);
                sent.add(request);
                if (request.header().method() == MadMethod.SET) {
                    byte[] answer = bytes.clone();
                    request.response(0).encode(MemorySegment.ofArray(answer), 0);
                    MemorySegment.copy(segment, SaMad.DATA_OFFSET, MemorySegment.ofArray(answer), SaMad.DATA_OFFSET,
                            InformInfo.LENGTH);
                    receiver.accept(ByteBuffer.wrap(answer));
                }
            } catch (DecodeException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public void setReceiver(Consumer<ByteBuffer> receiver) {
            this.receiver = receiver;
        }

        void report(long tid, Mgid mgid) {
            report(tid, mgid, GroupTrap.Type.CREATED);
        }

        void report(long tid, Mgid mgid, GroupTrap.Type type) {
            byte[] bytes = new byte[MAD_LENGTH];
            MemorySegment out = MemorySegment.ofArray(bytes);
            SaMad.request(MadMethod.REPORT, tid, Notice.ATTRIBUTE_ID, 0, 0).encode(out, 0);
            Notice.forGroupTrap(type, mgid, 1, Gid.parse("fe80::1")).encode(out, SaMad.DATA_OFFSET);
            receiver.accept(ByteBuffer.wrap(bytes));
        }
    }

    @Test
    void aRetransmittedReportIsAcknowledgedAgainButHandedOnOnce() throws Exception {
        ManualControlLoop timers = new ManualControlLoop(); // no timer fires: the answers come at once
        ScriptedSa sa = new ScriptedSa();
        try (SaClient client = new SaClient(sa, timers, 200, 2, 1)) {
            List<GroupTrap> traps = new CopyOnWriteArrayList<>();
            client.subscribe(GroupTrap.Type.CREATED, null, traps::add).toCompletableFuture().get(5, TimeUnit.SECONDS);
            Mgid group = Mgid.parse("ff12:401b:ffff::e000:1");
            sa.report(0x77, group);
            sa.report(0x77, group);
            sa.report(0x78, Mgid.parse("ff12:401b:ffff::e000:2"));
            assertEquals(2, traps.size(), "one trap per report, not per retransmission: " + traps);
            assertEquals(group, traps.get(0).mgid());
            long acknowledgements = sa.sent.stream().filter(m -> m.header().method() == MadMethod.REPORT_RESP).count();
            assertEquals(3, acknowledgements, "every report, retransmitted or not, is acknowledged");
            assertEquals(1L, client.statistics().get("duplicate_reports"));
        } finally {
            timers.close();
        }
    }

    /**
     * OpenSM reports a trap once per InformInfo it holds for the subscriber, each with its own
     * TID (seen when a subscription raced with an unsubscription in the OpenSM contract tests):
     * a group created twice with no deletion in between is one event.
     */
    @Test
    void theSameTrapReportedTwiceUnderTwoTidsIsHandedOnOnce() throws Exception {
        ManualControlLoop timers = new ManualControlLoop(); // no timer fires: the answers come at once
        ScriptedSa sa = new ScriptedSa();
        try (SaClient client = new SaClient(sa, timers, 200, 2, 1)) {
            List<GroupTrap> traps = new CopyOnWriteArrayList<>();
            client.subscribe(GroupTrap.Type.CREATED, null, traps::add).toCompletableFuture().get(5, TimeUnit.SECONDS);
            client.subscribe(GroupTrap.Type.DELETED, null, traps::add).toCompletableFuture().get(5, TimeUnit.SECONDS);
            Mgid group = Mgid.parse("ff12:401b:ffff::e000:3");
            sa.report(0x80, group, GroupTrap.Type.CREATED);
            sa.report(0x81, group, GroupTrap.Type.CREATED);
            sa.report(0x82, group, GroupTrap.Type.DELETED);
            sa.report(0x83, group, GroupTrap.Type.CREATED); // created again after the deletion: news
            assertEquals(List.of(GroupTrap.Type.CREATED, GroupTrap.Type.DELETED, GroupTrap.Type.CREATED),
                    traps.stream().map(GroupTrap::type).toList());
            assertEquals(1L, client.statistics().get("duplicate_reports"));
        } finally {
            timers.close();
        }
    }
}
