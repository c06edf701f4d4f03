package ipoib.sa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.sa.MadTransport;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.runtime.ManualControlLoop;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Member tables as OpenSM 3.3.23 under umad2sim/ibsim sends them: the whole GetTableResp as one
 * message marked RMPP Active (osm_sa.c osm_sa_respond) with RMPPVersion 0, of which the simulator
 * carries the first 256 octets. The header below is what arrived in the OpenSM test fabric for a
 * table of 60 groups (captured in UmadTransport's receive buffer, TID as umad2sim rewrote it).
 */
class SaClientTableTest {
    private static final String OPENSM_HEADER = "0103029200000000000300000000003d00380000000000000000010000000000"
            + "000000000000000000000000000700000000000000000000";

    /** Answers the first GetTable with the given octets (their TID replaced by the request's). */
    private static final class OneAnswer implements MadTransport {
        final byte[] answer;
        volatile Consumer<ByteBuffer> receiver;

        OneAnswer(byte[] answer) {
            this.answer = answer;
        }

        @Override
        public void send(ByteBuffer mad) {
            byte[] reply = answer.clone();
            for (int i = 8; i < 16; i++) {
                reply[i] = mad.get(mad.position() + i);
            }
            receiver.accept(ByteBuffer.wrap(reply));
        }

        @Override
        public void setReceiver(Consumer<ByteBuffer> receiver) {
            this.receiver = receiver;
        }
    }

    private static byte[] opensmAnswer(int records, int octets) {
        byte[] mad = new byte[MadTransport.MAD_LENGTH];
        byte[] header = HexFormat.of().parseHex(OPENSM_HEADER);
        System.arraycopy(header, 0, mad, 0, header.length);
        MemorySegment out = MemorySegment.ofArray(mad);
        byte[] whole = new byte[56 + records * 56];
        MemorySegment all = MemorySegment.ofArray(whole);
        for (int i = 0; i < records; i++) {
            Mgid g = Mgid.parse("ff12:401b:ffff::e000:" + Integer.toHexString(0x200 + i));
            SaMcMemberRecord.fromApi(new McMemberRecord(g, Gid.ZERO, ipoib.api.QKey.of(0x0b1b),
                    ipoib.api.Lid.of(0xC000 + i), ipoib.api.IbMtu.MTU_2048, 0, ipoib.api.PKey.DEFAULT,
                    ipoib.api.Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false)).encode(all, 56 + i * 56L);
        }
        // The simulator carries at most 256 octets of it (umad2sim.c umad2sim_write); a shorter
        // answer arrives short and the transport pads it with zeros.
        MemorySegment.copy(all, 56, out, 56, Math.min(octets, 256) - 56);
        return mad;
    }

    private static List<McMemberRecord> groups(SaClient client) throws Exception {
        return client.groups().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCutUnsegmentedTableGivesItsWholeRecordsAndIsCounted() throws Exception {
        ManualControlLoop timers = new ManualControlLoop(); // no timer fires: the answers come at once
        try (SaClient client = new SaClient(new OneAnswer(opensmAnswer(60, 56 + 60 * 56)), timers, 1000, 1, 1)) {
            List<McMemberRecord> table = groups(client);
            assertEquals(3, table.size(), "200 octets hold 3 whole records of 56");
            assertEquals(Mgid.parse("ff12:401b:ffff::e000:202"), table.get(2).mgid());
            assertEquals(1L, client.statistics().get("tables_cut"));
            assertEquals(0L, client.statistics().get("rmpp_transfers"), "not an RMPP transfer: nothing acknowledged");
        } finally {
            timers.close();
        }
    }

    @Test
    void anUnsegmentedTableThatFitsIsWholeAndNotCounted() throws Exception {
        ManualControlLoop timers = new ManualControlLoop(); // no timer fires: the answers come at once
        try (SaClient client = new SaClient(new OneAnswer(opensmAnswer(2, 56 + 2 * 56)), timers, 1000, 1, 1)) {
            assertEquals(2, groups(client).size());
            assertEquals(0L, client.statistics().get("tables_cut"));
        } finally {
            timers.close();
        }
    }
}
