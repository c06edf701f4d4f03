package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Mgid;
import ipoib.api.Qpn;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class LinkAddressCodecTest {

    /*
     * RFC 4391 §9.1.1 Figure 5, assembled by hand: flags octet 0x80 (IPoIB-QPN capability of the
     * advanced-capabilities draft §2.0), QPN 0x000048, GID fe80::2:c903:0:1.
     */
    private static final String VECTOR = "80 000048 fe800000000000000002c90300000001";
    private static final LinkAddress EXPECTED = new LinkAddress(0x80, new Qpn(0x48), Gid.parse("fe80::2:c903:0:1"));

    @Test
    void readsFigure5() throws DecodeException {
        MemorySegment buf = Hex.at(7, VECTOR);
        assertEquals(EXPECTED, LinkAddressCodec.read(buf, 7));
        assertEquals(0x80, LinkAddressCodec.flags(buf, 7));
        assertEquals(0x48, LinkAddressCodec.qpn(buf, 7));
        assertEquals(0xfe80_0000_0000_0000L, LinkAddressCodec.gidPrefix(buf, 7));
        assertEquals(0x0002_c903_0000_0001L, LinkAddressCodec.gidInterfaceId(buf, 7));
        assertFalse(LinkAddressCodec.isMulticast(buf, 7));
    }

    @Test
    void writesFigure5() {
        MemorySegment buf = Hex.filled(22);
        assertEquals(20, LinkAddressCodec.write(buf, 1, EXPECTED));
        assertEquals("aa" + Hex.norm(VECTOR) + "aa", Hex.of(buf));
        // The api module's own byte layout agrees.
        assertArrayEquals(EXPECTED.toBytes(), buf.asSlice(1, 20).toArray(ValueLayout.JAVA_BYTE));
    }

    // §9.1.1 with §4: a group's address is QPN 0xFFFFFF and the MGID; flags transmitted as zero.
    @Test
    void writesMulticastForm() throws DecodeException {
        MemorySegment buf = Hex.filled(20);
        LinkAddressCodec.writeMulticast(buf, 0, Mgid.parse("ff12:401b:ffff::ffff:ffff"));
        assertEquals(Hex.norm("00 ffffff ff12401bffff0000 00000000ffffffff"), Hex.of(buf));
        assertTrue(LinkAddressCodec.isMulticast(buf, 0));
        assertEquals(LinkAddress.multicast(Mgid.parse("ff12:401b:ffff::ffff:ffff")), LinkAddressCodec.read(buf, 0));
    }

    @Test
    void multicastNeedsBothQpnAndMulticastGid() throws DecodeException {
        assertFalse(LinkAddressCodec.isMulticast(Hex.segment("00 ffffff fe800000000000000002c90300000001"), 0));
        assertFalse(LinkAddressCodec.isMulticast(Hex.segment("00 fffffe ff12401bffff0000 00000000ffffffff"), 0));
    }

    @Test
    void peerIdentityIgnoresFlags() throws DecodeException {
        MemorySegment a = Hex.segment(VECTOR);
        MemorySegment b = Hex.segment("00 000048 fe800000000000000002c90300000001");
        MemorySegment c = Hex.segment("00 000049 fe800000000000000002c90300000001");
        assertTrue(LinkAddressCodec.samePeer(a, 0, b, 0));
        assertFalse(LinkAddressCodec.samePeer(a, 0, c, 0));
        assertTrue(LinkAddressCodec.samePeer(a, 0, EXPECTED.withoutFlags()));
        assertEquals(EXPECTED.withoutFlags(), LinkAddressCodec.readPeer(a, 0));
        assertEquals(LinkAddressCodec.readPeer(a, 0), LinkAddressCodec.readPeer(b, 0));
        assertFalse(LinkAddressCodec.samePeer(c, 0, EXPECTED));
    }

    @Test
    void truncatedAddressNamesFieldAndOffset() {
        MemorySegment buf = Hex.at(4, VECTOR);
        for (long offset : new long[] {5, 24, -1}) {
            DecodeException e = assertThrows(DecodeException.class, () -> LinkAddressCodec.read(buf, offset));
            assertEquals("IPoIB link-layer address", e.field());
            assertEquals(offset, e.offset());
        }
        assertThrows(DecodeException.class, () -> LinkAddressCodec.readPeer(buf, 5));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.qpn(buf, 5));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.flags(buf, 5));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.gidPrefix(buf, 5));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.gidInterfaceId(buf, 5));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.isMulticast(buf, 5));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.samePeer(buf, 5, EXPECTED));
        assertThrows(DecodeException.class, () -> LinkAddressCodec.samePeer(buf, 4, buf, 5));
    }

    @Test
    void encoderRefusesValuesBeyondTheirFields() {
        MemorySegment buf = Hex.filled(20);
        assertThrows(IllegalArgumentException.class, () -> LinkAddressCodec.write(buf, 0, 0x100, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> LinkAddressCodec.write(buf, 0, 0, 0x100_0000, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> LinkAddressCodec.write(buf, 0, 0, -1, 0, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> LinkAddressCodec.write(buf, 1, 0, 1, 0, 0));
    }

    @Property(tries = 300)
    void roundTrips(@ForAll @IntRange(max = 255) int flags, @ForAll @IntRange(max = 0xFFFFFF) int qpn,
            @ForAll long prefix, @ForAll long iid, @ForAll @IntRange(max = 7) int offset) throws DecodeException {
        MemorySegment buf = Hex.filled(offset + 20);
        LinkAddress address = new LinkAddress(flags, new Qpn(qpn), new Gid(prefix, iid));
        LinkAddressCodec.write(buf, offset, address);
        assertEquals(address, LinkAddressCodec.read(buf, offset));
        assertEquals(flags, LinkAddressCodec.flags(buf, offset));
        assertEquals(qpn, LinkAddressCodec.qpn(buf, offset));
        assertEquals(prefix, LinkAddressCodec.gidPrefix(buf, offset));
        assertEquals(iid, LinkAddressCodec.gidInterfaceId(buf, offset));
        assertEquals(address.isMulticast(), LinkAddressCodec.isMulticast(buf, offset));
        assertArrayEquals(address.toBytes(), buf.asSlice(offset, 20).toArray(ValueLayout.JAVA_BYTE));
    }
}
