package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class GrhTest {

    /*
     * Hand-assembled from the IBA GRH layout (IPv6 header shape): IPVer 6, TClass 0xab,
     * FlowLabel 0x12345 -> first word 0x6ab12345; PayLen 0x0102; NxtHdr 0x1b; HopLmt 0x40;
     * SGID fe80::2:c903:0:1; DGID ff12:401b:ffff::ffff:ffff (the broadcast-GID of RFC 4391 Figure 2).
     */
    private static final String VECTOR = "6ab12345 0102 1b 40"
            + " fe800000000000000002c90300000001"
            + " ff12401bffff0000 00000000ffffffff";
    private static final Gid SGID = Gid.parse("fe80::2:c903:0:1");
    private static final Gid DGID = Gid.parse("ff12:401b:ffff::ffff:ffff");

    @Test
    void decodesHandAssembledGrh() throws DecodeException {
        GrhView v = new GrhView().decode(Hex.at(3, VECTOR), 3);
        assertTrue(v.isPresent());
        assertEquals(0xAB, v.trafficClass());
        assertEquals(0x12345, v.flowLabel());
        assertEquals(0x0102, v.payloadLength());
        assertEquals(0x1B, v.nextHeader());
        assertEquals(0x40, v.hopLimit());
        assertEquals(SGID, v.sourceGid());
        assertEquals(DGID, v.destinationGid());
        assertEquals(SGID.prefix(), v.sourceGidPrefix());
        assertEquals(DGID.interfaceId(), v.destinationGidInterfaceId());
        assertTrue(v.isMulticastDestination());
    }

    @Test
    void encodesHandAssembledGrh() {
        MemorySegment buf = Hex.filled(42);
        assertEquals(40, Grh.write(buf, 1, 0xAB, 0x12345, 0x0102, 0x40, SGID, DGID));
        assertEquals("aa" + Hex.norm(VECTOR) + "aa", Hex.of(buf));
    }

    @Test
    void versionOtherThan6IsRejected() {
        MemorySegment buf = Hex.at(2, "4" + Hex.norm(VECTOR).substring(1));
        GrhView v = new GrhView();
        DecodeException e = assertThrows(DecodeException.class, () -> v.decode(buf, 2));
        assertEquals("GRH IP version", e.field());
        assertEquals(2, e.offset());
        assertFalse(v.isPresent());
    }

    @Test
    void nextHeaderOtherThanIbaIsRejected() {
        String raw = Hex.norm(VECTOR);
        MemorySegment buf = Hex.at(2, raw.substring(0, 12) + "3a" + raw.substring(14));
        DecodeException e = assertThrows(DecodeException.class, () -> new GrhView().decode(buf, 2));
        assertEquals("GRH next header", e.field());
        assertEquals(8, e.offset());
    }

    @Test
    void truncatedGrhIsRejectedAndViewLeftAbsent() throws DecodeException {
        GrhView v = new GrhView().decode(Hex.segment(VECTOR), 0);
        MemorySegment shortBuf = Hex.segment(Hex.norm(VECTOR).substring(0, 78));
        DecodeException e = assertThrows(DecodeException.class, () -> v.decode(shortBuf, 0));
        assertEquals("GRH", e.field());
        assertEquals(0, e.offset());
        assertFalse(v.isPresent());
        assertEquals(0, v.flowLabel());
    }

    @Test
    void encoderRefusesValuesBeyondTheirFields() {
        MemorySegment buf = Hex.filled(40);
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 256, 0, 0, 0, SGID, DGID));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0x10_0000, 0, 0, SGID, DGID));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0, 0x1_0000, 0, SGID, DGID));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0, 0, -1, SGID, DGID));
        assertThrows(IllegalArgumentException.class, () -> Grh.write(buf, 0, 0, 0, 0, 0, null, DGID));
        assertThrows(IndexOutOfBoundsException.class, () -> Grh.write(buf, 1, 0, 0, 0, 0, SGID, DGID));
    }

    @Property(tries = 300)
    void roundTrips(@ForAll @IntRange(max = 255) int tclass, @ForAll @IntRange(max = 0xFFFFF) int flow,
            @ForAll @IntRange(max = 0xFFFF) int payLen, @ForAll @IntRange(max = 255) int hops, @ForAll long sp,
            @ForAll long si, @ForAll long dp, @ForAll long di, @ForAll @IntRange(max = 9) int offset)
            throws DecodeException {
        MemorySegment buf = Hex.filled(offset + 40);
        Grh.write(buf, offset, tclass, flow, payLen, hops, sp, si, dp, di);
        GrhView v = new GrhView().decode(buf, offset);
        assertEquals(tclass, v.trafficClass());
        assertEquals(flow, v.flowLabel());
        assertEquals(payLen, v.payloadLength());
        assertEquals(hops, v.hopLimit());
        assertEquals(new Gid(sp, si), v.sourceGid());
        assertEquals(new Gid(dp, di), v.destinationGid());
        assertEquals((dp >>> 56) == 0xFF, v.isMulticastDestination());
    }
}
