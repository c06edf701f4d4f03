package ipoib.codec.nd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.codec.DecodeException;
import ipoib.codec.ipoib.Hex;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Known-answer vectors of {@link NdVectors}, decoded and re-encoded. */
class NdCodecTest {

    static Inet6Address ip(String text) {
        try {
            return (Inet6Address) InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    static LinkAddress lla(int flags, int qpn, String gid) {
        return new LinkAddress(flags, new Qpn(qpn), Gid.parse(gid));
    }

    static final NeighborSolicitation NS = new NeighborSolicitation(ip("fe80::202:c903:0:1"), ip("ff02::1:ff00:2"),
            ip("fe80::202:c903:0:2"), Optional.of(lla(0, 0x48, "fe80::2:c903:0:1")));
    static final NeighborAdvertisement NA = new NeighborAdvertisement(ip("fe80::202:c903:0:2"), ip("fe80::202:c903:0:1"),
            false, true, true, ip("fe80::202:c903:0:2"), Optional.of(lla(0x80, 0x49, "fe80::2:c903:0:2")));
    static final RouterAdvertisement RA = new RouterAdvertisement(ip("fe80::1"), ip("ff02::1"), 64, false, true, 1800,
            30000, 1000, Optional.of(lla(0, 0x4a, "fe80::2:c903:0:3")), OptionalLong.of(2044),
            List.of(new PrefixInformation(64, true, true, 2592000, 604800, ip("2001:db8:0:1::"))));
    static final RouterSolicitation RS = new RouterSolicitation(ip("fe80::202:c903:0:1"), ip("ff02::2"),
            Optional.of(lla(0, 0x48, "fe80::2:c903:0:1")));
    static final Redirect REDIRECT = new Redirect(ip("fe80::1"), ip("fe80::202:c903:0:1"), ip("fe80::202:c903:0:7"),
            ip("2001:db8::99"), Optional.of(lla(0, 0x50, "fe80::2:c903:0:7")));

    @Test
    void vectorChecksumsAgreeWithTheReferenceSum() throws DecodeException {
        for (String v : List.of(NdVectors.NS, NdVectors.NA, NdVectors.RA, NdVectors.RS, NdVectors.REDIRECT)) {
            byte[] p = Hex.bytes(v);
            assertEquals(((p[42] & 0xFF) << 8) | (p[43] & 0xFF), ReferenceChecksum.of(p));
            assertEquals(ReferenceChecksum.of(p), Icmpv6Checksum.compute(MemorySegment.ofArray(p), 0, p.length - 40));
            assertTrue(Icmpv6Checksum.isValid(MemorySegment.ofArray(p), 0, p.length - 40));
        }
    }

    @Test
    void decodesNeighborSolicitation() throws DecodeException {
        assertDecodes(NdVectors.NS, NS);
    }

    @Test
    void decodesNeighborAdvertisementWithRawFlagsOctet() throws DecodeException {
        assertDecodes(NdVectors.NA, NA);
    }

    @Test
    void decodesRouterAdvertisementWithMtuAndPrefix() throws DecodeException {
        assertDecodes(NdVectors.RA, RA);
    }

    @Test
    void decodesRouterSolicitation() throws DecodeException {
        assertDecodes(NdVectors.RS, RS);
    }

    @Test
    void decodesRedirect() throws DecodeException {
        assertDecodes(NdVectors.REDIRECT, REDIRECT);
    }

    @Test
    void encodesEachVector() {
        assertEncodes(NS, NdVectors.NS);
        assertEncodes(NA, NdVectors.NA);
        assertEncodes(RA, NdVectors.RA);
        assertEncodes(RS, NdVectors.RS);
        assertEncodes(REDIRECT, NdVectors.REDIRECT);
    }

    @Test
    void octetsBeyondThePayloadLengthAreIgnored() throws DecodeException {
        MemorySegment buf = Hex.segment(Hex.norm(NdVectors.NS) + "deadbeef");
        assertEquals(NS, NdCodec.decode(buf, 0, buf.byteSize()));
    }

    @Test
    void redirectedHeaderAndUnknownOptionsAreSkipped() throws DecodeException {
        // Redirect with a Redirected Header option (type 4, length 2: 6 reserved octets + 10 octets
        // of the original packet) and an unknown option type 200 of length 1 before the TLLA.
        String fixed = Hex.norm(NdVectors.REDIRECT).substring(0, 2 * 80);
        String tlla = Hex.norm(NdVectors.REDIRECT).substring(2 * 80);
        byte[] p = Hex.bytes(fixed + "0402000000000000" + "6000000000083aff" + "c801000000000000" + tlla);
        p[5] = (byte) (p.length - 40);
        ReferenceChecksum.fix(p);
        assertEquals(REDIRECT, NdCodec.decode(MemorySegment.ofArray(p), 0, p.length));
    }

    @Test
    void optionsThatOtherMessagesUseAreIgnored() throws DecodeException {
        // NS carrying a TLLA, an MTU and a prefix option: RFC 4861 §4.6 says to ignore them there.
        String ns = Hex.norm(NdVectors.NS);
        byte[] p = Hex.bytes(ns + "02030000" + "00000099fe800000000000000000000000000009" + "0501000000000500"
                + "03044000000000010000000100000000" + "20010db8000000000000000000000000");
        p[5] = (byte) (p.length - 40);
        ReferenceChecksum.fix(p);
        assertEquals(NS, NdCodec.decode(MemorySegment.ofArray(p), 0, p.length));
    }

    @Test
    void classifiesNdPackets() {
        MemorySegment ns = Hex.segment(NdVectors.NS);
        assertTrue(NdCodec.isNeighborDiscovery(ns, 0, ns.byteSize()));
        byte[] echo = Hex.bytes(NdVectors.NS);
        echo[40] = (byte) 128;
        assertFalse(NdCodec.isNeighborDiscovery(MemorySegment.ofArray(echo), 0, echo.length));
        byte[] udp = Hex.bytes(NdVectors.NS);
        udp[6] = 17;
        assertFalse(NdCodec.isNeighborDiscovery(MemorySegment.ofArray(udp), 0, udp.length));
        assertFalse(NdCodec.isNeighborDiscovery(ns, 0, 40));
        assertFalse(NdCodec.isNeighborDiscovery(ns, 1, ns.byteSize()));
        assertFalse(NdCodec.isNeighborDiscovery(ns, -1, 50));
        assertFalse(NdCodec.isNeighborDiscovery(Hex.segment("45000000"), 0, 4));
    }

    @Test
    void factoriesFollowRfc4861() {
        Inet6Address me = ip("fe80::202:c903:0:1");
        Inet6Address peer = ip("fe80::202:c903:0:2");
        LinkAddress self = lla(0, 0x48, "fe80::2:c903:0:1");
        assertEquals(NS, NeighborSolicitation.resolve(me, peer, self));
        NeighborSolicitation dad = NeighborSolicitation.duplicateAddressDetection(peer);
        assertEquals(ip("::"), dad.source());
        assertEquals(ip("ff02::1:ff00:2"), dad.destination());
        assertTrue(dad.sourceLinkAddress().isEmpty());
        NeighborAdvertisement answer = NeighborAdvertisement.answer(NS, peer, false, lla(0x80, 0x49, "fe80::2:c903:0:2"));
        assertEquals(NA, answer);
        NeighborAdvertisement toAll = NeighborAdvertisement.answer(dad, peer, true, self);
        assertEquals(ip("ff02::1"), toAll.destination());
        assertFalse(toAll.solicited());
        assertTrue(toAll.router());
    }

    private static void assertDecodes(String vector, NdMessage expected) throws DecodeException {
        MemorySegment buf = Hex.at(5, vector);
        assertEquals(expected, NdCodec.decode(buf, 5, buf.byteSize() - 5));
    }

    private static void assertEncodes(NdMessage message, String vector) {
        int length = NdCodec.encodedLength(message);
        assertEquals(Hex.bytes(vector).length, length);
        MemorySegment buf = Hex.filled(length + 2);
        assertEquals(length, NdCodec.encode(buf, 1, message));
        assertEquals("aa" + Hex.norm(vector) + "aa", Hex.of(buf));
    }
}
