package ipoib.codec.iba;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class HeaderViewsTest {

    @Property(tries = 300)
    void lrhRoundTrips(@ForAll @IntRange(max = 15) int vl, @ForAll @IntRange(max = 15) int sl,
                       @ForAll @IntRange(max = 3) int lnh, @ForAll @IntRange(max = 0xFFFF) int dlid,
                       @ForAll @IntRange(max = 0x7FF) int words, @ForAll @IntRange(max = 0xFFFF) int slid)
            throws DecodeException {
        Lrh lrh = new Lrh().virtualLane(vl).serviceLevel(sl).linkNextHeader(lnh).destinationLid(dlid)
                .packetLengthWords(words).sourceLid(slid);
        byte[] bytes = new byte[Lrh.LENGTH];
        Arrays.fill(bytes, (byte) 0xFF);
        lrh.encode(MemorySegment.ofArray(bytes), 0);
        assertEquals(0, bytes[1] & 0x0C, "reserved bits");
        assertEquals(0, bytes[4] & 0xF8, "reserved bits");
        Lrh back = new Lrh().decode(MemorySegment.ofArray(bytes), 0);
        assertEquals(lrh.toString(), back.toString());
        assertEquals(lrh.toString(), new Lrh().set(back).toString());
    }

    @Property(tries = 300)
    void grhRoundTrips(@ForAll @IntRange(max = 255) int tclass, @ForAll @IntRange(max = 0xFFFFF) int flow,
                       @ForAll @IntRange(max = 0xFFFF) int paylen, @ForAll @IntRange(max = 255) int hops,
                       @ForAll long a, @ForAll long b, @ForAll long c, @ForAll long d) throws DecodeException {
        Grh grh = new Grh().trafficClass(tclass).flowLabel(flow).payloadLength(paylen).hopLimit(hops).sourceGid(a, b)
                .destinationGid(c, d);
        byte[] bytes = new byte[Grh.LENGTH];
        grh.encode(MemorySegment.ofArray(bytes), 0);
        assertEquals(6, (bytes[0] & 0xFF) >>> 4);
        assertEquals(0x1B, bytes[6]);
        Grh back = new Grh().decode(MemorySegment.ofArray(bytes), 0);
        assertEquals(grh.toString(), back.toString());
        assertEquals(c, back.destinationGidPrefix());
        assertEquals(d, back.destinationGidInterfaceId());
        assertEquals(grh.toString(), new Grh().set(back).toString());
    }

    /*
     * Hand-assembled from the IBA GRH layout (IPv6 header shape): IPVer 6, TClass 0xab,
     * FlowLabel 0x12345 -> first word 0x6ab12345; PayLen 0x0102; NxtHdr 0x1b; HopLmt 0x40;
     * SGID fe80::2:c903:0:1; DGID ff12:401b:ffff::ffff:ffff (the broadcast-GID of RFC 4391 Figure 2).
     */
    private static final String GRH_VECTOR = "6ab12345 0102 1b 40"
            + " fe800000000000000002c90300000001"
            + " ff12401bffff0000 00000000ffffffff";
    private static final Gid SGID = Gid.parse("fe80::2:c903:0:1");
    private static final Gid DGID = Gid.parse("ff12:401b:ffff::ffff:ffff");

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    /** {@code prefix} octets of 0xAA, then {@code body}, then {@code suffix} octets of 0xAA. */
    private static MemorySegment framed(int prefix, byte[] body, int suffix) {
        byte[] out = new byte[prefix + body.length + suffix];
        Arrays.fill(out, (byte) 0xAA);
        System.arraycopy(body, 0, out, prefix, body.length);
        return MemorySegment.ofArray(out);
    }

    @Test
    void grhDecodesHandAssembledVector() throws DecodeException {
        Grh v = new Grh();
        assertSame(v, v.decode(framed(3, hex(GRH_VECTOR), 0), 3));
        assertEquals(6, v.ipVersion());
        assertEquals(0xAB, v.trafficClass());
        assertEquals(0x12345, v.flowLabel());
        assertEquals(0x0102, v.payloadLength());
        assertEquals(0x1B, v.nextHeader());
        assertEquals(0x40, v.hopLimit());
        assertEquals(SGID, v.sourceGid());
        assertEquals(DGID, v.destinationGid());
        assertEquals(SGID.prefix(), v.sourceGidPrefix());
        assertEquals(DGID.interfaceId(), v.destinationGidInterfaceId());
        assertTrue(v.isMulticast());
    }

    @Test
    void grhEncodesHandAssembledVector() {
        MemorySegment expected = framed(1, hex(GRH_VECTOR), 1);
        MemorySegment buf = framed(42, new byte[0], 0);
        assertEquals(40, Grh.write(buf, 1, 0xAB, 0x12345, 0x0102, 0x40, SGID.prefix(), SGID.interfaceId(),
                DGID.prefix(), DGID.interfaceId()));
        assertEquals(-1, buf.mismatch(expected), "static writer");
        MemorySegment viaView = framed(42, new byte[0], 0);
        new Grh().trafficClass(0xAB).flowLabel(0x12345).payloadLength(0x0102).hopLimit(0x40).sourceGid(SGID)
                .destinationGid(DGID).encode(viaView, 1);
        assertEquals(-1, viaView.mismatch(expected), "view encoder");
    }

    @Test
    void grhWriterRefusesValuesBeyondTheirFields() {
        MemorySegment buf = framed(40, new byte[0], 0);
        long p = SGID.prefix();
        long i = SGID.interfaceId();
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 256, 0, 0, 0, p, i, p, i));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0x10_0000, 0, 0, p, i, p, i));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0, 0x1_0000, 0, p, i, p, i));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0, 0, -1, p, i, p, i));
        assertThrows(IllegalArgumentException.class, () -> new Grh().sourceGid((Gid) null));
        assertThrows(IllegalArgumentException.class, () -> new Grh().destinationGid((Gid) null));
        assertThrows(IndexOutOfBoundsException.class, () -> Grh.write(buf, 1, 0, 0, 0, 0, p, i, p, i));
        assertThrows(IndexOutOfBoundsException.class, () -> Grh.write(buf, -1, 0, 0, 0, 0, p, i, p, i));
        assertEquals(-1, buf.mismatch(framed(40, new byte[0], 0)), "a refused write leaves the buffer alone");
    }

    @Property(tries = 300)
    void grhWriterRoundTrips(@ForAll @IntRange(max = 255) int tclass, @ForAll @IntRange(max = 0xFFFFF) int flow,
                             @ForAll @IntRange(max = 0xFFFF) int payLen, @ForAll @IntRange(max = 255) int hops,
                             @ForAll long sp, @ForAll long si, @ForAll long dp, @ForAll long di,
                             @ForAll @IntRange(max = 9) int offset) throws DecodeException {
        MemorySegment buf = framed(offset + 40, new byte[0], 0);
        assertEquals(Grh.LENGTH, Grh.write(buf, offset, tclass, flow, payLen, hops, sp, si, dp, di));
        Grh v = new Grh().decode(buf, offset);
        assertEquals(tclass, v.trafficClass());
        assertEquals(flow, v.flowLabel());
        assertEquals(payLen, v.payloadLength());
        assertEquals(Grh.NEXT_HEADER_IBA, v.nextHeader());
        assertEquals(hops, v.hopLimit());
        assertEquals(new Gid(sp, si), v.sourceGid());
        assertEquals(new Gid(dp, di), v.destinationGid());
        assertEquals((dp >>> 56) == 0xFF, v.isMulticast());
    }

    @Property(tries = 300)
    void bthRoundTrips(@ForAll @IntRange(max = 255) int opcode, @ForAll boolean se, @ForAll boolean m,
                       @ForAll @IntRange(max = 3) int pad, @ForAll @IntRange(max = 0xFFFF) int pkey,
                       @ForAll @IntRange(max = 0xFFFFFF) int qp, @ForAll boolean ack,
                       @ForAll @IntRange(max = 0xFFFFFF) int psn) throws DecodeException {
        Bth bth = new Bth().opcode(opcode).solicitedEvent(se).migrationRequest(m).padCount(pad).partitionKey(pkey)
                .destinationQp(qp).ackRequest(ack).packetSequenceNumber(psn);
        byte[] bytes = new byte[Bth.LENGTH];
        Arrays.fill(bytes, (byte) 0xFF);
        bth.encode(MemorySegment.ofArray(bytes), 0);
        assertEquals(0, bytes[4], "Resv8a");
        assertEquals(0, bytes[8] & 0x7F, "reserved bits");
        Bth back = new Bth().decode(MemorySegment.ofArray(bytes), 0);
        assertEquals(bth.toString(), back.toString());
        assertEquals(bth.toString(), new Bth().set(back).toString());
    }

    @Property(tries = 300)
    void dethRoundTrips(@ForAll int qkey, @ForAll @IntRange(max = 0xFFFFFF) int srcQp) throws DecodeException {
        Deth deth = new Deth().queueKey(qkey).sourceQp(srcQp);
        byte[] bytes = new byte[Deth.LENGTH];
        Arrays.fill(bytes, (byte) 0xFF);
        deth.encode(MemorySegment.ofArray(bytes), 0);
        assertEquals(0, bytes[4], "reserved");
        Deth back = new Deth().decode(MemorySegment.ofArray(bytes), 0);
        assertEquals(qkey, back.queueKey());
        assertEquals(srcQp, back.sourceQp());
        assertEquals(deth.toString(), new Deth().set(back).toString());
    }

    /** The headers of draft-kashyap appendix B, filled with distinct values and laid out by hand. */
    @Test
    void fieldsSitWhereTheLayoutsPutThem() {
        byte[] bytes = new byte[Lrh.LENGTH + Grh.LENGTH + Bth.LENGTH + Deth.LENGTH];
        MemorySegment s = MemorySegment.ofArray(bytes);
        new Lrh().virtualLane(0xA).linkVersion(0).serviceLevel(0x5).linkNextHeader(3).destinationLid(0x1234)
                .packetLengthWords(0x567).sourceLid(0x89AB).encode(s, 0);
        new Grh().trafficClass(0xBC).flowLabel(0xDEF01).payloadLength(0x2345).hopLimit(0x67)
                .sourceGid(0x0102030405060708L, 0x090A0B0C0D0E0F10L)
                .destinationGid(0x1112131415161718L, 0x191A1B1C1D1E1F20L).encode(s, 8);
        new Bth().opcode(0x64).solicitedEvent(true).migrationRequest(false).padCount(2).partitionKey(0xFFFF)
                .destinationQp(0xABCDEF).ackRequest(true).packetSequenceNumber(0x123456).encode(s, 48);
        new Deth().queueKey(0x80010000).sourceQp(0x000001).encode(s, 60);
        assertEquals("a0531234056789ab"
                + "6bcdef0123451b67" + "0102030405060708090a0b0c0d0e0f10" + "1112131415161718191a1b1c1d1e1f20"
                + "64a0ffff00abcdef80123456" + "8001000000000001", HexFormat.of().formatHex(bytes));
    }

    @Test
    void truncatedAndWrongVersionHeadersAreNamed() {
        MemorySegment seven = MemorySegment.ofArray(new byte[7]);
        assertEquals("LRH", assertThrows(DecodeException.class, () -> new Lrh().decode(seven, 0)).field());
        assertEquals("GRH", assertThrows(DecodeException.class, () -> new Grh().decode(seven, 0)).field());
        assertEquals("BTH", assertThrows(DecodeException.class, () -> new Bth().decode(seven, 0)).field());
        assertEquals("DETH", assertThrows(DecodeException.class, () -> new Deth().decode(seven, 0)).field());
        byte[] grh = new byte[Grh.LENGTH];
        grh[0] = 0x40;
        DecodeException e = assertThrows(DecodeException.class, () -> new Grh().decode(MemorySegment.ofArray(grh), 0));
        assertEquals("GRH IPVer", e.field());
        byte[] lrh = {0x01, 0, 0, 0, 0, 0, 0, 0};
        assertEquals("LRH LVer",
                assertThrows(DecodeException.class, () -> new Lrh().decode(MemorySegment.ofArray(lrh), 0)).field());
    }

    @Test
    void settersRefuseValuesBeyondTheirFields() {
        assertThrows(IllegalArgumentException.class, () -> new Lrh().virtualLane(16));
        assertThrows(IllegalArgumentException.class, () -> new Lrh().destinationLid(0x10000));
        assertThrows(IllegalArgumentException.class, () -> new Lrh().packetLengthWords(0x800));
        assertThrows(IllegalArgumentException.class, () -> new Grh().flowLabel(0x100000));
        assertThrows(IllegalArgumentException.class, () -> new Bth().padCount(4));
        assertThrows(IllegalArgumentException.class, () -> new Bth().destinationQp(-1));
        assertThrows(IllegalArgumentException.class, () -> new Deth().sourceQp(0x1000000));
    }

    @Test
    void clearResetsEveryField() {
        byte[] expected = new byte[Bth.LENGTH];
        byte[] out = new byte[Bth.LENGTH];
        new Bth().opcode(1).padCount(3).partitionKey(7).clear().encode(MemorySegment.ofArray(out), 0);
        assertArrayEquals(expected, out);
        assertEquals(new Lrh().toString(), new Lrh().destinationLid(9).clear().toString());
        assertEquals(new Grh().toString(), new Grh().hopLimit(9).nextHeader(3).clear().toString());
        assertEquals(new Deth().toString(), new Deth().queueKey(9).clear().toString());
    }
}
