package ipoib.codec.iba;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class UdPacketTest {

    @Test
    void decodesTheLocalKnownPacketAsTsharkDoes() throws DecodeException {
        byte[] bytes = KnownPackets.local();
        UdPacket packet = new UdPacket().decode(MemorySegment.ofArray(bytes), 0, bytes.length);
        assertFalse(packet.global());
        assertEquals(3, packet.lrh().virtualLane());
        assertEquals(5, packet.lrh().serviceLevel());
        assertEquals(Lrh.LNH_IBA_LOCAL, packet.lrh().linkNextHeader());
        assertEquals(18, packet.lrh().destinationLid());
        assertEquals(11, packet.lrh().packetLengthWords());
        assertEquals(52, packet.lrh().sourceLid());
        assertEquals(Bth.OPCODE_UD_SEND_ONLY, packet.bth().opcode());
        assertTrue(packet.bth().solicitedEvent());
        assertTrue(packet.bth().migrationRequest());
        assertEquals(2, packet.bth().padCount());
        assertEquals(32769, packet.bth().partitionKey());
        assertEquals(0x123456, packet.bth().destinationQp());
        assertTrue(packet.bth().ackRequest());
        assertEquals(11259375, packet.bth().packetSequenceNumber());
        assertEquals(0x80010000, packet.deth().queueKey());
        assertEquals(1, packet.deth().sourceQp());
        assertEquals(28, packet.payloadOffset());
        assertEquals(10, packet.payloadLength());
        assertEquals("IPoIB!", new String(bytes, 32, 6, StandardCharsets.US_ASCII));
        assertEquals(0x109e049f, Icrc.read(MemorySegment.ofArray(bytes), 0, bytes.length - 6));
        assertEquals(0xe226, Vcrc.read(MemorySegment.ofArray(bytes), 0, bytes.length - 2));
    }

    @Test
    void decodesTheGlobalKnownPacketAsTsharkDoes() throws DecodeException {
        byte[] bytes = KnownPackets.global();
        UdPacket packet = new UdPacket().decode(MemorySegment.ofArray(bytes), 0, bytes.length);
        assertTrue(packet.global());
        assertEquals(Lrh.LNH_IBA_GLOBAL, packet.lrh().linkNextHeader());
        assertEquals(49153, packet.lrh().destinationLid());
        assertEquals(20, packet.lrh().packetLengthWords());
        assertEquals(18, packet.grh().trafficClass());
        assertEquals(214375, packet.grh().flowLabel());
        assertEquals(32, packet.grh().payloadLength());
        assertEquals(64, packet.grh().hopLimit());
        assertEquals(Gid.parse("fe80::2:c903:0:1"), packet.grh().sourceGid());
        assertEquals(Gid.parse("ff12:401b:ffff::ffff:ffff"), packet.grh().destinationGid());
        assertTrue(packet.grh().isMulticast());
        assertEquals(1, packet.bth().padCount());
        assertEquals(0xFFFF, packet.bth().partitionKey());
        assertEquals(0xFFFFFF, packet.bth().destinationQp());
        assertEquals(0x0b1b, packet.deth().queueKey());
        assertEquals(0x48, packet.deth().sourceQp());
        assertEquals(7, packet.payloadLength());
        assertEquals(0xf88b556f, Icrc.read(MemorySegment.ofArray(bytes), 0, bytes.length - 6));
    }

    @Test
    void encodesTheKnownPacketsOctetForOctet() {
        byte[] local = KnownPackets.local();
        UdPacket packet = new UdPacket();
        packet.global(false);
        packet.lrh().virtualLane(3).serviceLevel(5).destinationLid(18).sourceLid(52);
        packet.bth().solicitedEvent(true).migrationRequest(true).partitionKey(0x8001).destinationQp(0x123456)
                .ackRequest(true).packetSequenceNumber(0xabcdef);
        packet.deth().queueKey(0x80010000).sourceQp(1);
        byte[] out = new byte[local.length];
        int n = packet.encode(MemorySegment.ofArray(out), 0, MemorySegment.ofArray(local), 28, 10);
        assertEquals(local.length, n);
        assertArrayEquals(local, out);

        byte[] global = KnownPackets.global();
        packet = new UdPacket().global(true);
        packet.lrh().destinationLid(0xc001).sourceLid(0x34);
        packet.grh().trafficClass(0x12).flowLabel(0x34567).hopLimit(0x40).sourceGid(Gid.parse("fe80::2:c903:0:1"))
                .destinationGid(Gid.parse("ff12:401b:ffff::ffff:ffff"));
        packet.bth().partitionKey(0xffff).destinationQp(0xffffff);
        packet.deth().queueKey(0x0b1b).sourceQp(0x48);
        out = new byte[global.length];
        packet.encode(MemorySegment.ofArray(out), 0, MemorySegment.ofArray(global), 68, 7);
        assertArrayEquals(global, out);
    }

    @Provide
    Arbitrary<IndependentPacket> packets() {
        return PacketArbitraries.packets(400);
    }

    @Property(tries = 400)
    void encodeMatchesTheIndependentBuilder(@ForAll("packets") IndependentPacket description) {
        byte[] expected = description.build();
        UdPacket packet = new UdPacket();
        description.configure(packet);
        byte[] out = new byte[expected.length + 16];
        Arrays.fill(out, (byte) 0x5A); // stale buffer contents must not leak into pad or headers
        int n = packet.encode(MemorySegment.ofArray(out), 16, MemorySegment.ofArray(description.payload()), 0,
                description.payload().length);
        assertEquals(expected.length, n);
        assertEquals(UdPacket.encodedLength(description.global(), description.payload().length), n);
        assertArrayEquals(expected, Arrays.copyOfRange(out, 16, out.length));
        assertEquals(16 + packet.headerLength(), packet.payloadOffset());
    }

    @Property(tries = 400)
    void decodeRecoversEveryField(@ForAll("packets") IndependentPacket d) throws DecodeException {
        byte[] bytes = d.build();
        byte[] framed = new byte[bytes.length + 7];
        System.arraycopy(bytes, 0, framed, 5, bytes.length);
        UdPacket p = new UdPacket().decode(MemorySegment.ofArray(framed), 5, bytes.length);
        assertEquals(d.global(), p.global());
        assertEquals(d.vl(), p.lrh().virtualLane());
        assertEquals(d.sl(), p.lrh().serviceLevel());
        assertEquals(d.dlid(), p.lrh().destinationLid());
        assertEquals(d.slid(), p.lrh().sourceLid());
        if (d.global()) {
            assertEquals(d.tclass(), p.grh().trafficClass());
            assertEquals(d.flowLabel(), p.grh().flowLabel());
            assertEquals(d.hopLimit(), p.grh().hopLimit());
            assertEquals(new Gid(d.sgidHi(), d.sgidLo()), p.grh().sourceGid());
            assertEquals(new Gid(d.dgidHi(), d.dgidLo()), p.grh().destinationGid());
        }
        assertEquals(d.se(), p.bth().solicitedEvent());
        assertEquals(d.m(), p.bth().migrationRequest());
        assertEquals(d.pkey(), p.bth().partitionKey());
        assertEquals(d.destQp(), p.bth().destinationQp());
        assertEquals(d.ackReq(), p.bth().ackRequest());
        assertEquals(d.psn(), p.bth().packetSequenceNumber());
        assertEquals(d.qkey(), p.deth().queueKey());
        assertEquals(d.srcQp(), p.deth().sourceQp());
        assertEquals(bytes.length, p.packetLength());
        assertArrayEquals(d.payload(), Arrays.copyOfRange(framed, (int) p.payloadOffset(),
                (int) p.payloadOffset() + p.payloadLength()));
    }

    @Property(tries = 200)
    void encodeAroundPayloadLeavesThePayloadInPlace(@ForAll("packets") IndependentPacket d) {
        byte[] expected = d.build();
        UdPacket packet = new UdPacket();
        d.configure(packet);
        byte[] out = new byte[expected.length];
        System.arraycopy(d.payload(), 0, out, packet.headerLength(), d.payload().length);
        packet.encodeAroundPayload(MemorySegment.ofArray(out), 0, d.payload().length);
        assertArrayEquals(expected, out);
    }

    @Test
    void encoderRefusesOversizedPayloadsAndSmallBuffers() {
        UdPacket packet = new UdPacket();
        MemorySegment big = MemorySegment.ofArray(new byte[10_000]);
        assertThrows(IllegalArgumentException.class, () -> packet.encode(big, 0, big, 100, UdPacket.MAX_PAYLOAD + 1));
        MemorySegment small = MemorySegment.ofArray(new byte[40]);
        assertThrows(IndexOutOfBoundsException.class, () -> packet.encode(small, 0, big, 0, 10));
        assertEquals(UdPacket.MAX_PAYLOAD + UdPacket.GLOBAL_OVERHEAD, packet.global(true).encode(big, 0, big, 5000,
                UdPacket.MAX_PAYLOAD));
    }

    @Test
    void everyTruncationIsRefused() {
        for (byte[] bytes : new byte[][] {KnownPackets.local(), KnownPackets.global()}) {
            for (int length = 0; length < bytes.length; length++) {
                byte[] cut = Arrays.copyOf(bytes, length);
                DecodeException e = assertThrows(DecodeException.class,
                        () -> new UdPacket().decode(MemorySegment.ofArray(cut), 0, cut.length));
                assertTrue(Arrays.asList("IBA packet", "VCRC").contains(e.field()), e.getMessage());
            }
            // a length beyond the segment
            assertEquals("IBA packet", assertThrows(DecodeException.class,
                    () -> new UdPacket().decode(MemorySegment.ofArray(bytes), 0, bytes.length + 1)).field());
        }
    }

    /** Applies a change, re-seals the VCRC (as a switch would) and expects the named field at the offset. */
    private static void assertRefused(byte[] original, Consumer<byte[]> change, String field, long offset) {
        byte[] bytes = original.clone();
        change.accept(bytes);
        Vcrc.write(MemorySegment.ofArray(bytes), 0, bytes.length - 2);
        DecodeException e = assertThrows(DecodeException.class,
                () -> new UdPacket().decode(MemorySegment.ofArray(bytes), 0, bytes.length));
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(offset, e.offset(), e.getMessage());
    }

    @Test
    void badFieldsAreNamedWithTheirOffsets() {
        byte[] local = KnownPackets.local();
        byte[] global = KnownPackets.global();
        assertRefused(local, b -> b[0] |= 0x01, "LRH LVer", 0);
        assertRefused(local, b -> b[1] &= (byte) 0xFC, "LRH LNH", 1);
        assertRefused(local, b -> b[5]++, "LRH PktLen", 4);
        assertRefused(global, b -> b[8] = (byte) 0x41, "GRH IPVer", 8);
        assertRefused(global, b -> b[14] = 0x1C, "GRH NxtHdr", 14);
        assertRefused(global, b -> b[13]++, "GRH PayLen", 12);
        assertRefused(local, b -> b[8] = 0x04, "BTH OpCode", 8);
        assertRefused(global, b -> b[48] = 0x65, "BTH OpCode", 48);
        assertRefused(local, b -> b[9] |= 0x01, "BTH TVer", 9);
        assertRefused(local, b -> b[30] ^= 0x01, "ICRC", local.length - 6);
        assertRefused(global, b -> b[20] ^= 0x01, "ICRC", global.length - 6);

        byte[] vcrc = local.clone();
        vcrc[20] ^= 0x10;
        DecodeException e = assertThrows(DecodeException.class,
                () -> new UdPacket().decode(MemorySegment.ofArray(vcrc), 0, vcrc.length));
        assertEquals("VCRC", e.field());
        assertEquals(local.length - 2, e.offset());
    }

    @Test
    void padCountLongerThanThePaddedPayloadIsRefused() {
        // an empty payload leaves no room for pad octets
        UdPacket packet = new UdPacket();
        byte[] out = new byte[UdPacket.LOCAL_OVERHEAD];
        packet.encode(MemorySegment.ofArray(out), 0, MemorySegment.ofArray(new byte[0]), 0, 0);
        out[9] |= 0x30; // PadCnt 3
        Icrc.write(MemorySegment.ofArray(out), 0, out.length - 6);
        Vcrc.write(MemorySegment.ofArray(out), 0, out.length - 2);
        DecodeException e = assertThrows(DecodeException.class,
                () -> new UdPacket().decode(MemorySegment.ofArray(out), 0, out.length));
        assertEquals("BTH PadCnt", e.field());
        assertEquals(9, e.offset());
    }

    @Test
    void tooLongForPktLenIsRefused() {
        MemorySegment big = MemorySegment.ofArray(new byte[UdPacket.MAX_PACKET_LENGTH + 10]);
        DecodeException e = assertThrows(DecodeException.class,
                () -> new UdPacket().decode(big, 0, UdPacket.MAX_PACKET_LENGTH + 2));
        assertEquals("IBA packet", e.field());
    }

    @Test
    void decodeAllocatesNothingOnTheHotPath() throws DecodeException {
        byte[] bytes = KnownPackets.global();
        MemorySegment segment = MemorySegment.ofArray(bytes);
        UdPacket packet = new UdPacket();
        MemorySegment out = MemorySegment.ofArray(new byte[bytes.length]);
        for (int i = 0; i < 20_000; i++) { // warm up so that escape analysis has run
            packet.decode(segment, 0, bytes.length);
            packet.encode(out, 0, segment, 68, 7);
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++) {
            packet.decode(segment, 0, bytes.length);
            packet.encode(out, 0, segment, 68, 7);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 10_000, "allocated " + allocated + " octets for 10000 packets");
        assertEquals(bytes[0], out.get(ValueLayout.JAVA_BYTE, 0));
    }
}
