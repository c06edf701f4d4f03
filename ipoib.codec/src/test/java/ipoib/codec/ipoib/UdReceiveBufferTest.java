package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.codec.DecodeException;
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
        GrhView view = new GrhView();
        assertSame(view, UdReceiveBuffer.grh(Hex.segment(WITHOUT_GRH), 0, false, view));
        assertFalse(view.isPresent());
        assertEquals(0, view.hopLimit());
        assertEquals(0, view.sourceGidPrefix());
    }

    @Test
    void presentGrhIsDecoded() throws DecodeException {
        MemorySegment buf = Hex.filled(44);
        Grh.write(buf, 0, 0, 0, 4, 1, 0xfe80_0000_0000_0000L, 1, 0xfe80_0000_0000_0000L, 2);
        GrhView view = UdReceiveBuffer.grh(buf, 0, true, new GrhView());
        assertTrue(view.isPresent());
        assertEquals(1, view.sourceGidInterfaceId());
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
