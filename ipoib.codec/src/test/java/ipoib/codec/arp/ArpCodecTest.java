package ipoib.codec.arp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.api.link.EtherType;
import ipoib.codec.DecodeException;
import ipoib.codec.ipoib.Hex;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArpCodecTest {

    private static final LinkAddress SENDER = new LinkAddress(0, new Qpn(0x48), Gid.parse("fe80::2:c903:0:1"));
    private static final LinkAddress TARGET = new LinkAddress(0, new Qpn(0x49), Gid.parse("fe80::2:c903:0:2"));

    /*
     * Hand-assembled from RFC 4391 §9.2 (hardware type 32, hardware length 20, addresses as
     * Figure 5) and the RFC 826 field order: a request from 192.0.2.1 for 192.0.2.2, target
     * hardware address unknown (zero).
     */
    private static final String REQUEST = "0020 0800 14 04 0001"
            + " 00000048 fe800000000000000002c90300000001 c0000201"
            + " 00000000 00000000000000000000000000000000 c0000202";

    /** The same layout for the reply from 192.0.2.2 to 192.0.2.1. */
    private static final String REPLY = "0020 0800 14 04 0002"
            + " 00000049 fe800000000000000002c90300000002 c0000202"
            + " 00000048 fe800000000000000002c90300000001 c0000201";

    @Test
    void lengthIsEightPlusTwiceTwentyFour() {
        assertEquals(56, ArpCodec.LENGTH);
        assertEquals(56, Hex.bytes(REQUEST).length);
    }

    @Test
    void decodesHandAssembledRequest() throws Exception {
        ArpPacket p = ArpCodec.decode(Hex.at(9, REQUEST), 9);
        assertEquals(ArpOperation.REQUEST, p.operation());
        assertEquals(SENDER, p.senderHardwareAddress());
        assertEquals(0xC0000201, p.senderProtocolAddress());
        assertEquals(ArpPacket.UNKNOWN_HARDWARE_ADDRESS, p.targetHardwareAddress());
        assertEquals(InetAddress.getByName("192.0.2.2"), p.targetIp());
        assertEquals(InetAddress.getByName("192.0.2.1"), p.senderIp());
    }

    @Test
    void encodesHandAssembledRequestAndReply() {
        MemorySegment buf = Hex.filled(58);
        ArpPacket request = ArpPacket.request(SENDER, 0xC0000201, 0xC0000202);
        assertEquals(56, ArpCodec.encode(buf, 1, request));
        assertEquals("aa" + Hex.norm(REQUEST) + "aa", Hex.of(buf));
        ArpCodec.encode(buf, 0, ArpPacket.replyTo(request, TARGET));
        assertEquals(Hex.norm(REPLY), Hex.of(buf, 0, 56));
    }

    @Test
    void ethernetHardwareTypeIsReportedAtTheType() {
        // Hardware type 1 (Ethernet) with the IPoIB length 20: the type is what is wrong.
        DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.at(3, patch(REQUEST, 0, "0001")), 3));
        assertEquals("ARP hardware type", e.field());
        assertEquals(3, e.offset());
    }

    @Test
    void ethernetHardwareLengthWithTypeInfinibandIsReportedAtTheLength() {
        DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.at(3, patch(REQUEST, 4, "06")), 3));
        assertEquals("ARP hardware length", e.field());
        assertEquals(7, e.offset());
    }

    @Test
    void ipv6SizedProtocolLengthIsRejected() {
        DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.at(3, patch(REQUEST, 5, "10")), 3));
        assertEquals("ARP protocol length", e.field());
        assertEquals(8, e.offset());
    }

    @Test
    void protocolOtherThanIpv4IsRejected() {
        DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.at(3, patch(REQUEST, 2, "86dd")), 3));
        assertEquals("ARP protocol type", e.field());
        assertEquals(5, e.offset());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0000", "0005", "0008", "ffff"})
    void unknownOperationIsRejected(String op) {
        DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.at(3, patch(REQUEST, 6, op)), 3));
        assertEquals("ARP operation", e.field());
        assertEquals(9, e.offset());
    }

    @Test
    void everyTruncationIsRejectedAtTheStart() {
        byte[] whole = Hex.bytes(REQUEST);
        for (int n = 0; n < 56; n++) {
            MemorySegment buf = MemorySegment.ofArray(java.util.Arrays.copyOf(whole, n));
            DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(buf, 0));
            assertEquals("ARP packet", e.field());
            assertEquals(0, e.offset());
        }
        assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.segment(REQUEST), -1));
    }

    @Test
    void operationMustBelongToTheEtherType() throws DecodeException {
        MemorySegment rarp = Hex.segment(patch(REQUEST, 6, "0003"));
        assertEquals(ArpOperation.REVERSE_REQUEST, ArpCodec.decode(rarp, 0, EtherType.RARP).operation());
        DecodeException e = assertThrows(DecodeException.class, () -> ArpCodec.decode(rarp, 0, EtherType.ARP));
        assertEquals("ARP operation", e.field());
        assertEquals(6, e.offset());
        assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.segment(REQUEST), 0, EtherType.RARP));
        DecodeException notArp = assertThrows(DecodeException.class, () -> ArpCodec.decode(Hex.segment(REQUEST), 0, EtherType.IPV4));
        assertEquals("EtherType", notArp.field());
        assertEquals(ArpOperation.REQUEST, ArpCodec.decode(Hex.segment(REQUEST), 0, EtherType.ARP).operation());
    }

    @Test
    void encoderNeedsRoom() {
        ArpPacket request = ArpPacket.request(SENDER, 1, 2);
        assertThrows(IndexOutOfBoundsException.class, () -> ArpCodec.encode(Hex.filled(55), 0, request));
        assertThrows(IndexOutOfBoundsException.class, () -> ArpCodec.encode(Hex.filled(56), 1, request));
        assertThrows(IllegalArgumentException.class, () -> ArpPacket.replyTo(ArpPacket.replyTo(request, TARGET), SENDER));
        assertThrows(IllegalArgumentException.class, () -> new ArpPacket(null, SENDER, 0, TARGET, 0));
    }

    @Test
    void ipv4Conversions() throws Exception {
        Inet4Address a = (Inet4Address) InetAddress.getByName("203.0.113.254");
        assertEquals(0xCB0071FE, ArpPacket.ipv4(a));
        assertEquals(a, ArpPacket.ipv4(0xCB0071FE));
    }

    @Property(tries = 500)
    void roundTrips(@ForAll("packets") ArpPacket packet, @ForAll @IntRange(max = 9) int offset) throws DecodeException {
        MemorySegment buf = Hex.filled(offset + 56);
        ArpCodec.encode(buf, offset, packet);
        assertEquals(packet, ArpCodec.decode(buf, offset));
        assertEquals(packet, ArpCodec.decode(buf, offset, packet.operation().etherType()));
    }

    @Provide
    Arbitrary<ArpPacket> packets() {
        return Combinators.combine(Arbitraries.of(ArpOperation.class), addresses(), Arbitraries.integers(),
                addresses(), Arbitraries.integers()).as(ArpPacket::new);
    }

    static Arbitrary<LinkAddress> addresses() {
        return Combinators.combine(Arbitraries.integers().between(0, 255), Arbitraries.integers().between(0, Qpn.MAX),
                Arbitraries.longs(), Arbitraries.longs()).as((f, q, p, i) -> new LinkAddress(f, new Qpn(q), new Gid(p, i)));
    }

    /** {@code hex} with the octets at {@code octet} replaced by {@code replacement}. */
    private static String patch(String hex, int octet, String replacement) {
        String n = Hex.norm(hex);
        return n.substring(0, 2 * octet) + replacement + n.substring(2 * octet + replacement.length());
    }
}
