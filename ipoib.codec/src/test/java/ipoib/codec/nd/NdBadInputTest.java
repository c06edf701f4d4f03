package ipoib.codec.nd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.codec.DecodeException;
import ipoib.codec.ipoib.Hex;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every rejection of the ND decoder: each names the field and its offset. Packets are decoded at
 * offset {@link #AT} in their buffer so the offsets are seen to be absolute. Unless a test is
 * about the checksum, mutated packets get a fresh checksum from {@link ReferenceChecksum}, so the
 * check under test is the one that fires.
 */
class NdBadInputTest {

    private static final int AT = 3;

    /** The NS vector without its SLLA option: 40 + 24 octets. */
    private static String bareNs() {
        return Hex.norm(NdVectors.NS).substring(0, 2 * 64);
    }

    /** {@code fixedHex} (a header and ICMPv6 fixed part) plus {@code optionsHex}, with payload length and checksum set. */
    private static byte[] withOptions(String fixedHex, String optionsHex) {
        byte[] p = Hex.bytes(fixedHex + optionsHex);
        p[4] = (byte) ((p.length - 40) >>> 8);
        p[5] = (byte) (p.length - 40);
        return ReferenceChecksum.fix(p);
    }

    private static DecodeException rejects(byte[] packet) {
        return rejects(packet, packet.length);
    }

    private static DecodeException rejects(byte[] packet, long length) {
        byte[] b = new byte[AT + packet.length];
        System.arraycopy(packet, 0, b, AT, packet.length);
        return assertThrows(DecodeException.class, () -> NdCodec.decode(MemorySegment.ofArray(b), AT, length));
    }

    private static void assertRejected(byte[] packet, String field, int offsetInPacket) {
        DecodeException e = rejects(packet);
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(AT + offsetInPacket, e.offset(), e.getMessage());
    }

    private static byte[] ns() {
        return Hex.bytes(NdVectors.NS);
    }

    // ---- IPv6 header

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 64, 254})
    void hopLimitOtherThan255IsRejected(int hopLimit) {
        byte[] p = ns();
        p[7] = (byte) hopLimit;
        assertRejected(p, "IPv6 hop limit", 7);
    }

    @Test
    void versionOtherThan6IsRejected() {
        byte[] p = ns();
        p[0] = 0x40;
        assertRejected(p, "IPv6 version", 0);
    }

    @Test
    void nextHeaderOtherThanIcmpv6IsRejected() {
        byte[] p = ns();
        p[6] = 0; // a hop-by-hop header: not handed to this codec
        assertRejected(p, "IPv6 next header", 6);
    }

    @Test
    void headerShorterThan40IsRejected() {
        assertRejected(java.util.Arrays.copyOf(ns(), 39), "IPv6 header", 0);
    }

    @Test
    void payloadLengthBeyondThePacketIsRejected() {
        byte[] p = ns();
        DecodeException e = rejects(p, p.length - 1);
        assertEquals("IPv6 payload length", e.field());
        assertEquals(AT + 4, e.offset());
    }

    @Test
    void lengthBeyondTheSegmentOrNegativeIsRejected() {
        byte[] p = ns();
        assertEquals("IPv6 packet", rejects(p, p.length + 1).field());
        assertEquals("IPv6 packet", rejects(p, -1).field());
    }

    // ---- ICMPv6 header

    @Test
    void wrongChecksumIsRejected() {
        byte[] p = ns();
        p[43] ^= 1;
        assertRejected(p, "ICMPv6 checksum", 42);
        byte[] q = ns();
        q[60] ^= 0x10; // a flipped bit in the target address
        assertRejected(q, "ICMPv6 checksum", 42);
    }

    @Test
    void nonZeroCodeIsRejected() {
        byte[] p = ns();
        p[41] = 1;
        ReferenceChecksum.fix(p);
        assertRejected(p, "ICMPv6 code", 41);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 128, 129, 132, 138, 255})
    void typesOtherThanNdAreRejected(int type) {
        byte[] p = ns();
        p[40] = (byte) type;
        ReferenceChecksum.fix(p);
        assertRejected(p, "ICMPv6 type", 40);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 4, 7})
    void payloadShorterThanAnyNdMessageIsRejected(int payload) {
        byte[] p = java.util.Arrays.copyOf(ns(), 40 + payload);
        p[4] = 0;
        p[5] = (byte) payload;
        assertRejected(p, "IPv6 payload length", 4);
    }

    @Test
    void messagesShorterThanTheirFixedPartAreRejected() {
        // RA needs 16, NS and NA 24, Redirect 40: each cut to one 8-octet unit less.
        record Case(String vector, int fixed) {}
        for (Case c : new Case[] {new Case(NdVectors.RA, 16), new Case(NdVectors.NS, 24), new Case(NdVectors.NA, 24),
                new Case(NdVectors.REDIRECT, 40)}) {
            byte[] p = withOptions(Hex.norm(c.vector()).substring(0, 2 * (40 + c.fixed() - 8)), "");
            assertRejected(p, "IPv6 payload length", 4);
        }
    }

    // ---- option framing

    @Test
    void zeroLengthOptionIsRejected() {
        assertRejected(withOptions(bareNs(), "0100000000000000"), "ND option length", 64 + 1);
        assertRejected(withOptions(bareNs(), "c800000000000000"), "ND option length", 64 + 1);
    }

    @Test
    void optionOverrunningTheMessageIsRejected() {
        // Type 1, length 3 (24 octets) but only 16 octets left.
        assertRejected(withOptions(bareNs(), "01030000000000480000000000000000"), "ND option length", 64 + 1);
        // Unknown type with length 255.
        assertRejected(withOptions(bareNs(), "c8ff000000000000"), "ND option length", 64 + 1);
    }

    @Test
    void truncatedOptionHeaderIsRejected() {
        assertRejected(withOptions(bareNs(), "01"), "ND option header", 64);
        String sll = Hex.norm(NdVectors.NS).substring(2 * 64);
        assertRejected(withOptions(bareNs(), sll + "05"), "ND option header", 64 + 24);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 5})
    void sourceLinkAddressOptionOfOtherLengthIsRejected(int units) {
        String option = "01" + String.format("%02x", units) + "00".repeat(8 * units - 2);
        assertRejected(withOptions(bareNs(), option), "ND source link-layer address option length", 64 + 1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void targetLinkAddressOptionOfOtherLengthIsRejected(int units) {
        String bareNa = Hex.norm(NdVectors.NA).substring(0, 2 * 64);
        String option = "02" + String.format("%02x", units) + "00".repeat(8 * units - 2);
        assertRejected(withOptions(bareNa, option), "ND target link-layer address option length", 64 + 1);
    }

    @Test
    void linkAddressOptionLengthIsCheckedEvenWhereTheMessageIgnoresIt() {
        // A TLLA of Ethernet size (length 1) inside a Neighbor Solicitation.
        assertRejected(withOptions(bareNs(), "0201000000000000"), "ND target link-layer address option length", 64 + 1);
    }

    @Test
    void duplicateLinkAddressOptionIsRejected() {
        String sll = Hex.norm(NdVectors.NS).substring(2 * 64);
        assertRejected(withOptions(bareNs(), sll + sll), "ND source link-layer address option", 64 + 24);
    }

    @Test
    void prefixOptionOfOtherLengthIsRejected() {
        String bareRa = Hex.norm(NdVectors.RA).substring(0, 2 * 56);
        assertRejected(withOptions(bareRa, "0303" + "00".repeat(22)), "ND prefix information option length", 56 + 1);
    }

    @Test
    void prefixLengthBeyond128IsRejected() {
        String bareRa = Hex.norm(NdVectors.RA).substring(0, 2 * 56);
        String prefix = "030481c0" + "00".repeat(28);
        assertRejected(withOptions(bareRa, prefix), "ND prefix information prefix length", 56 + 2);
    }

    @Test
    void mtuOptionOfOtherLengthOrTwiceIsRejected() {
        String bareRa = Hex.norm(NdVectors.RA).substring(0, 2 * 56);
        assertRejected(withOptions(bareRa, "0502" + "00".repeat(14)), "ND MTU option length", 56 + 1);
        String mtu = "05010000000007fc";
        assertRejected(withOptions(bareRa, mtu + mtu), "ND MTU option", 56 + 8);
    }

    // ---- RFC 4861 per-message rules

    @Test
    void solicitationFromUnspecifiedSourceMustGoToSolicitedNodeMulticast() {
        byte[] p = Hex.bytes(bareNs());
        java.util.Arrays.fill(p, 8, 24, (byte) 0); // source ::
        p[24 + 13] = 0; // destination ff02::1:ff00:2 -> ff02::1:0:2, not solicited-node
        p[24 + 12] = 0;
        assertRejected(withOptions(Hex.of(MemorySegment.ofArray(p)), ""), "IPv6 destination address", 24);
    }

    @Test
    void solicitationFromUnspecifiedSourceCarriesNoSourceLinkAddress() {
        byte[] p = ns();
        java.util.Arrays.fill(p, 8, 24, (byte) 0);
        ReferenceChecksum.fix(p);
        assertRejected(p, "ND source link-layer address option", 64);
    }

    @Test
    void routerSolicitationFromUnspecifiedSourceCarriesNoSourceLinkAddress() {
        byte[] p = Hex.bytes(NdVectors.RS);
        java.util.Arrays.fill(p, 8, 24, (byte) 0);
        ReferenceChecksum.fix(p);
        assertRejected(p, "ND source link-layer address option", 48);
    }

    @Test
    void multicastTargetIsRejected() {
        byte[] p = ns();
        p[48] = (byte) 0xFF;
        p[49] = 0x02;
        ReferenceChecksum.fix(p);
        assertRejected(p, "ND target address", 48);
        byte[] q = Hex.bytes(NdVectors.NA);
        q[48] = (byte) 0xFF;
        ReferenceChecksum.fix(q);
        assertRejected(q, "ND target address", 48);
    }

    @Test
    void solicitedAdvertisementToMulticastIsRejected() {
        byte[] p = Hex.bytes(NdVectors.NA);
        byte[] allNodes = Hex.bytes("ff020000000000000000000000000001");
        System.arraycopy(allNodes, 0, p, 24, 16);
        ReferenceChecksum.fix(p);
        assertRejected(p, "Neighbor Advertisement S flag", 44);
    }

    @Test
    void routerAdvertisementFromNonLinkLocalSourceIsRejected() {
        byte[] p = Hex.bytes(NdVectors.RA);
        p[8] = 0x20;
        p[9] = 0x01;
        ReferenceChecksum.fix(p);
        assertRejected(p, "IPv6 source address", 8);
    }

    @Test
    void redirectRulesOfSection81() {
        byte[] fromGlobal = Hex.bytes(NdVectors.REDIRECT);
        fromGlobal[8] = 0x20;
        ReferenceChecksum.fix(fromGlobal);
        assertRejected(fromGlobal, "IPv6 source address", 8);

        byte[] multicastDestination = Hex.bytes(NdVectors.REDIRECT);
        multicastDestination[64] = (byte) 0xFF;
        ReferenceChecksum.fix(multicastDestination);
        assertRejected(multicastDestination, "Redirect destination address", 64);

        byte[] globalTarget = Hex.bytes(NdVectors.REDIRECT);
        globalTarget[48] = 0x20;
        globalTarget[49] = 0x01;
        ReferenceChecksum.fix(globalTarget);
        assertRejected(globalTarget, "Redirect target address", 48);
    }

    @Test
    void redirectToTheDestinationItselfIsAccepted() throws DecodeException {
        byte[] p = Hex.bytes(NdVectors.REDIRECT);
        System.arraycopy(p, 64, p, 48, 16); // target = destination = 2001:db8::99
        ReferenceChecksum.fix(p);
        Redirect r = (Redirect) NdCodec.decode(MemorySegment.ofArray(p), 0, p.length);
        assertEquals(r.redirectedDestination(), r.target());
    }
}
