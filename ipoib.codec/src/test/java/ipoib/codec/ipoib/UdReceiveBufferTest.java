package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.iba.Grh;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class UdReceiveBufferTest {

    /** 40 octets of GRH area holding garbage, then IPv4 encapsulation header, then 3 octets payload. */
    private static final String WITHOUT_GRH = "ee".repeat(40) + "0800 0000" + "450000";

    @Test
    void layoutFollowsGrhAreaThenHeader() {
        assertEquals(40, UdReceiveBuffer.GRH_AREA_LENGTH);
        assertEquals(40, UdReceiveBuffer.ENCAPSULATION_OFFSET);
        assertEquals(44, UdReceiveBuffer.PAYLOAD_OFFSET);
    }

    @Test
    void readsEtherTypeAndPayloadLengthBehindGrhArea() throws DecodeException {
        MemorySegment buf = Hex.at(5, WITHOUT_GRH);
        assertEquals(0x0800, UdReceiveBuffer.etherType(buf, 5, 47));
        assertEquals(3, UdReceiveBuffer.payloadLength(buf, 5, 47));
        assertEquals(0, UdReceiveBuffer.payloadLength(buf, 5, 44));
    }

    @Test
    void absentGrhIsNotReadEvenWhenGarbage() throws DecodeException {
        // The garbage would be refused (IPVer 0xe) if it were read; a stale view is cleared.
        Grh view = new Grh().hopLimit(9).sourceGid(1, 2);
        assertNull(UdReceiveBuffer.grh(Hex.segment(WITHOUT_GRH), 0, false, view));
        assertEquals(0, view.hopLimit());
        assertEquals(0, view.sourceGidPrefix());
    }

    @Test
    void presentGrhIsDecoded() throws DecodeException {
        MemorySegment buf = Hex.filled(44);
        Grh.write(buf, 0, 0, 0, 4, 1, 0xfe80_0000_0000_0000L, 1, 0xfe80_0000_0000_0000L, 2);
        Grh view = new Grh();
        assertSame(view, UdReceiveBuffer.grh(buf, 0, true, view));
        assertEquals(1, view.sourceGidInterfaceId());
    }

    /*
     * Hand-assembled from the IBA GRH layout (IPv6 header shape): IPVer 6, TClass 0xab,
     * FlowLabel 0x12345 -> first word 0x6ab12345; PayLen 0x0102; NxtHdr 0x1b; HopLmt 0x40;
     * SGID fe80::2:c903:0:1; DGID ff12:401b:ffff::ffff:ffff (the broadcast-GID of RFC 4391 Figure 2).
     * The same vector is checked against the GRH codec in ipoib.codec.iba.HeaderViewsTest.
     */
    private static final String GRH_VECTOR = "6ab12345 0102 1b 40"
            + " fe800000000000000002c90300000001"
            + " ff12401bffff0000 00000000ffffffff";
    private static final Gid SGID = Gid.parse("fe80::2:c903:0:1");
    private static final Gid DGID = Gid.parse("ff12:401b:ffff::ffff:ffff");

    @Test
    void presentGrhDecodesHandAssembledVector() throws DecodeException {
        Grh view = UdReceiveBuffer.grh(Hex.at(3, GRH_VECTOR), 3, true, new Grh());
        assertEquals(0xAB, view.trafficClass());
        assertEquals(0x12345, view.flowLabel());
        assertEquals(0x0102, view.payloadLength());
        assertEquals(0x1B, view.nextHeader());
        assertEquals(0x40, view.hopLimit());
        assertEquals(SGID, view.sourceGid());
        assertEquals(DGID, view.destinationGid());
        assertTrue(view.isMulticast());
    }

    @Test
    void versionOtherThan6IsRejected() throws DecodeException {
        MemorySegment buf = Hex.at(2, "4" + Hex.norm(GRH_VECTOR).substring(1));
        Grh view = new Grh().decode(Hex.segment(GRH_VECTOR), 0);
        DecodeException e = assertThrows(DecodeException.class, () -> UdReceiveBuffer.grh(buf, 2, true, view));
        assertEquals("GRH IPVer", e.field());
        assertEquals(2, e.offset());
        assertEquals(new Grh().toString(), view.toString(), "view left cleared");
    }

    @Test
    void nextHeaderOtherThanIbaIsRejected() {
        String raw = Hex.norm(GRH_VECTOR);
        MemorySegment buf = Hex.at(2, raw.substring(0, 12) + "3a" + raw.substring(14));
        Grh view = new Grh();
        DecodeException e = assertThrows(DecodeException.class, () -> UdReceiveBuffer.grh(buf, 2, true, view));
        assertEquals("GRH NxtHdr", e.field());
        assertEquals(8, e.offset());
        assertEquals(new Grh().toString(), view.toString(), "view left cleared");
    }

    @Test
    void truncatedGrhIsRejectedAndViewLeftCleared() throws DecodeException {
        Grh view = UdReceiveBuffer.grh(Hex.segment(GRH_VECTOR), 0, true, new Grh());
        MemorySegment shortBuf = Hex.segment(Hex.norm(GRH_VECTOR).substring(0, 78));
        DecodeException e = assertThrows(DecodeException.class, () -> UdReceiveBuffer.grh(shortBuf, 0, true, view));
        assertEquals("GRH", e.field());
        assertEquals(0, e.offset());
        assertEquals(0, view.flowLabel());
        assertEquals(new Grh().toString(), view.toString(), "view left cleared");
    }

    @Test
    void completionShorterThanGrhAreaAndHeaderIsRejected() {
        MemorySegment buf = Hex.at(5, WITHOUT_GRH);
        DecodeException e = assertThrows(DecodeException.class, () -> UdReceiveBuffer.etherType(buf, 5, 43));
        assertEquals("UD receive length", e.field());
        assertEquals(5, e.offset());
        assertThrows(DecodeException.class, () -> UdReceiveBuffer.payloadLength(buf, 5, -1));
        DecodeException beyond = assertThrows(DecodeException.class, () -> UdReceiveBuffer.etherType(buf, 5, 48));
        assertEquals("UD receive buffer", beyond.field());
    }
}
