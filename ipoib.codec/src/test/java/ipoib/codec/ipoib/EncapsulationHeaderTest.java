package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.link.EtherType;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class EncapsulationHeaderTest {

    // RFC 4391 §6, Figure 3 and Table 1: 16-bit Type then 16 reserved bits, zero on send.
    @Test
    void writesTypeAndZeroReservedAsFigure3() {
        MemorySegment buf = Hex.filled(6);
        assertEquals(4, EncapsulationHeader.write(buf, 1, EtherType.IPV4));
        assertEquals("aa08000000aa", Hex.of(buf));
        EncapsulationHeader.write(buf, 0, EtherType.IPV6);
        assertEquals("86dd0000", Hex.of(buf, 0, 4));
    }

    @Test
    void readsTable1Types() throws DecodeException {
        assertEquals(0x0800, EncapsulationHeader.etherType(Hex.segment("0800 0000"), 0));
        assertEquals(0x0806, EncapsulationHeader.etherType(Hex.segment("0806 0000"), 0));
        assertEquals(0x8035, EncapsulationHeader.etherType(Hex.segment("8035 0000"), 0));
        assertEquals(0x86DD, EncapsulationHeader.etherType(Hex.segment("86dd 0000"), 0));
    }

    @Test
    void ignoresReservedOnReceive() throws DecodeException {
        assertEquals(EtherType.ARP, EncapsulationHeader.etherType(Hex.segment("0806 ffff"), 0));
    }

    @Test
    void keepsUnknownEtherTypes() throws DecodeException {
        assertEquals(0x88B5, EncapsulationHeader.etherType(Hex.segment("88b5 0000"), 0));
    }

    @Test
    void truncatedHeaderNamesFieldAndOffset() {
        DecodeException e = assertThrows(DecodeException.class,
                () -> EncapsulationHeader.etherType(Hex.segment("0800 00 0000"), 2));
        assertEquals("IPoIB encapsulation header", e.field());
        assertEquals(2, e.offset());
        assertThrows(DecodeException.class, () -> EncapsulationHeader.etherType(Hex.segment("0800 0000"), -1));
        assertThrows(DecodeException.class, () -> EncapsulationHeader.etherType(MemorySegment.ofArray(new byte[0]), 0));
    }

    @Test
    void refusesEtherTypesBeyond16Bits() {
        MemorySegment buf = Hex.filled(4);
        assertThrows(IllegalArgumentException.class, () -> EncapsulationHeader.write(buf, 0, 0x1_0000));
        assertThrows(IllegalArgumentException.class, () -> EncapsulationHeader.write(buf, 0, -1));
        assertThrows(IndexOutOfBoundsException.class, () -> EncapsulationHeader.write(buf, 1, 0x0800));
    }

    @Property(tries = 300)
    void roundTrips(@ForAll @IntRange(max = 0xFFFF) int etherType, @ForAll @IntRange(max = 16) int offset)
            throws DecodeException {
        MemorySegment buf = Hex.filled(offset + 4);
        EncapsulationHeader.write(buf, offset, etherType);
        assertEquals(etherType, EncapsulationHeader.etherType(buf, offset));
        assertEquals(0, Wire.u16(buf, offset + 2));
    }

}
