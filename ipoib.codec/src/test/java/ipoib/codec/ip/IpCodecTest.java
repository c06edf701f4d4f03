package ipoib.codec.ip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.codec.DecodeException;
import ipoib.codec.nd.Icmpv6Checksum;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Vectors, round trips and bad input of the IP, ICMP and UDP codecs. */
class IpCodecTest {

    private static MemorySegment hex(String text) {
        return MemorySegment.ofArray(HexFormat.of().parseHex(text.replace(" ", "")));
    }

    /** RFC 1071 checksum the plain way, over a byte array, as the reference. */
    static int referenceChecksum(byte[]... parts) {
        long sum = 0;
        int total = 0;
        for (byte[] p : parts) {
            total += p.length;
        }
        byte[] all = new byte[total + 1];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        for (int i = 0; i < total; i += 2) {
            sum += ((all[i] & 0xFF) << 8) | (all[i + 1] & 0xFF);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    private static byte[] bytes(MemorySegment s, long offset, int length) {
        return s.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void ipv4HeaderOfAWellKnownExample() throws DecodeException {
        // The classic example header: checksum 0xb861.
        MemorySegment s = MemorySegment.ofArray(new byte[0x73]);
        Ipv4Header.write(s, 0, 0, 0x73, 0, true, 64, Ipv4Header.PROTOCOL_UDP, 0xC0A80001, 0xC0A800C7);
        assertEquals("4500007300004000401 1b861c0a80001c0a800c7".replace(" ", ""),
                HexFormat.of().formatHex(bytes(s, 0, 20)));
        assertEquals(20, Ipv4Header.validate(s, 0, 0x73));
        assertEquals(0xC0A80001, Ipv4Header.source(s, 0));
        assertEquals(0xC0A800C7, Ipv4Header.destination(s, 0));
        assertEquals(17, Ipv4Header.protocol(s, 0));
        assertEquals(64, Ipv4Header.ttl(s, 0));
        assertFalse(Ipv4Header.isFragment(s, 0));
        assertEquals("192.168.0.199", Ipv4Header.text(Ipv4Header.destination(s, 0)));
    }

    @Test
    void ipv4HeaderIsRefusedWhenWrong() {
        MemorySegment good = hex("45000073000040004011b861c0a80001c0a800c7");
        DecodeException checksum = assertThrows(DecodeException.class, () -> {
            MemorySegment s = MemorySegment.ofArray(java.util.Arrays.copyOf(bytes(good, 0, 20), 0x73));
            s.set(ValueLayout.JAVA_BYTE, 8, (byte) 63);
            Ipv4Header.validate(s, 0, 0x73);
        });
        assertTrue(checksum.getMessage().contains("IPv4 header checksum at offset 10"), checksum.getMessage());
        // total length 0x73 but only 20 octets received
        DecodeException total = assertThrows(DecodeException.class, () -> Ipv4Header.validate(good, 0, 20));
        assertEquals("IPv4 total length", total.field());
        assertThrows(DecodeException.class, () -> Ipv4Header.validate(hex("4500"), 0, 2));
        assertEquals("IPv4 version", assertThrows(DecodeException.class,
                () -> Ipv4Header.validate(hex("65000014000040004011b861c0a80001c0a800c7"), 0, 20)).field());
        assertEquals("IPv4 header length", assertThrows(DecodeException.class,
                () -> Ipv4Header.validate(hex("44000014000040004011b861c0a80001c0a800c7"), 0, 20)).field());
        assertThrows(IllegalArgumentException.class,
                () -> Ipv4Header.write(MemorySegment.ofArray(new byte[20]), 0, 0, 19, 0, false, 64, 1, 0, 0));
        assertThrows(IndexOutOfBoundsException.class,
                () -> Ipv4Header.write(MemorySegment.ofArray(new byte[19]), 0, 0, 20, 0, false, 64, 1, 0, 0));
    }

    @Test
    void fragmentsAreRecognised() throws DecodeException {
        MemorySegment s = MemorySegment.ofArray(new byte[28]);
        Ipv4Header.write(s, 0, 0, 28, 7, false, 64, 17, 1, 2);
        s.set(ValueLayout.JAVA_BYTE, 6, (byte) 0x20); // MF
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 10, (short) 0);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 10,
                (short) InternetChecksum.checksum(s, 0, 20));
        assertEquals(20, Ipv4Header.validate(s, 0, 28));
        assertTrue(Ipv4Header.isFragment(s, 0));
    }

    @Test
    void icmpEchoRoundTripMatchesTheReferenceChecksum() throws DecodeException {
        MemorySegment s = MemorySegment.ofArray(new byte[20 + 8 + 5]);
        MemorySegment.copy(new byte[] {1, 2, 3, 4, 5}, 0, s, ValueLayout.JAVA_BYTE, 28, 5);
        assertEquals(13, IcmpEcho.writeIpv4(s, 20, IcmpEcho.TYPE_ECHO_REQUEST, 0x1234, 7, 5));
        byte[] message = bytes(s, 20, 13);
        int stored = (message[2] & 0xFF) << 8 | (message[3] & 0xFF);
        message[2] = 0;
        message[3] = 0;
        assertEquals(referenceChecksum(message), stored);
        IcmpEcho.validateIpv4(s, 20, 13);
        assertEquals(8, IcmpEcho.type(s, 20));
        assertEquals(0x1234, IcmpEcho.identifier(s, 20));
        assertEquals(7, IcmpEcho.sequence(s, 20));
        s.set(ValueLayout.JAVA_BYTE, 32, (byte) 9);
        DecodeException e = assertThrows(DecodeException.class, () -> IcmpEcho.validateIpv4(s, 20, 13));
        assertEquals("ICMP checksum", e.field());
        assertThrows(DecodeException.class, () -> IcmpEcho.validateIpv4(s, 20, 3));
    }

    @Test
    void icmpv6EchoAgreesWithTheNdChecksum() throws DecodeException {
        MemorySegment s = MemorySegment.ofArray(new byte[40 + 8 + 3]);
        Ipv6Header.write(s, 0, 11, Ipv6Header.NEXT_HEADER_ICMPV6, 64, 0xfe80_0000_0000_0000L, 0x0202_c903_0000_0101L,
                0xfe80_0000_0000_0000L, 0x0202_c903_0000_0201L);
        assertEquals(11, IcmpEcho.writeIpv6(s, 0, IcmpEcho.TYPE_V6_ECHO_REQUEST, 1, 2, 3));
        assertTrue(Icmpv6Checksum.isValid(s, 0, 11));
        assertEquals(Icmpv6Checksum.compute(s, 0, 11), Short.toUnsignedInt(
                s.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 42)));
        IcmpEcho.validateIpv6(s, 0, 11);
        assertEquals(11, Ipv6Header.validate(s, 0, 51));
        assertEquals(0x0202_c903_0000_0201L, Ipv6Header.destinationLow(s, 0));
        assertEquals(64, Ipv6Header.hopLimit(s, 0));
        s.set(ValueLayout.JAVA_BYTE, 8, (byte) 0xFD); // another source: checksum no longer matches
        assertEquals("ICMPv6 checksum", assertThrows(DecodeException.class, () -> IcmpEcho.validateIpv6(s, 0, 11)).field());
    }

    @Test
    void udpOverIpv4MatchesTheReferenceChecksum() throws DecodeException {
        int data = 7;
        MemorySegment s = MemorySegment.ofArray(new byte[20 + 8 + data]);
        for (int i = 0; i < data; i++) {
            s.set(ValueLayout.JAVA_BYTE, 28 + i, (byte) (i * 37));
        }
        Ipv4Header.write(s, 0, 0, 35, 1, true, 64, Ipv4Header.PROTOCOL_UDP, 0x0A000001, 0x0A000002);
        assertEquals(15, Udp.writeIpv4(s, 0, 20, 5000, 7000, data));
        byte[] udp = bytes(s, 20, 15);
        int stored = (udp[6] & 0xFF) << 8 | (udp[7] & 0xFF);
        udp[6] = 0;
        udp[7] = 0;
        byte[] pseudo = {10, 0, 0, 1, 10, 0, 0, 2, 0, 17, 0, 15};
        assertEquals(referenceChecksum(pseudo, udp), stored);
        assertEquals(15, Udp.validateIpv4(s, 0, 20, 15));
        assertEquals(5000, Udp.sourcePort(s, 20));
        assertEquals(7000, Udp.destinationPort(s, 20));
        s.set(ValueLayout.JAVA_BYTE, 30, (byte) 1);
        assertEquals("UDP checksum", assertThrows(DecodeException.class, () -> Udp.validateIpv4(s, 0, 20, 15)).field());
        // a zero checksum means none over IPv4
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 26, (short) 0);
        assertEquals(15, Udp.validateIpv4(s, 0, 20, 15));
        assertEquals("UDP length", assertThrows(DecodeException.class, () -> Udp.validateIpv4(s, 0, 20, 12)).field());
    }

    @Test
    void udpOverIpv6RequiresItsChecksum() throws DecodeException {
        MemorySegment s = MemorySegment.ofArray(new byte[40 + 8 + 4]);
        Ipv6Header.write(s, 0, 12, Ipv6Header.NEXT_HEADER_UDP, 64, 0xfd00_0000_0000_0000L, 1, 0xfd00_0000_0000_0000L, 2);
        Udp.writeIpv6(s, 0, 1, 2, 4);
        byte[] udp = bytes(s, 40, 12);
        int stored = (udp[6] & 0xFF) << 8 | (udp[7] & 0xFF);
        udp[6] = 0;
        udp[7] = 0;
        byte[] pseudo = new byte[40];
        System.arraycopy(bytes(s, 8, 32), 0, pseudo, 0, 32);
        pseudo[35] = 12;
        pseudo[39] = 17;
        assertEquals(referenceChecksum(pseudo, udp), stored);
        assertEquals(12, Udp.validateIpv6(s, 0, 12));
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 46, (short) 0);
        DecodeException zero = assertThrows(DecodeException.class, () -> Udp.validateIpv6(s, 0, 12));
        assertTrue(zero.getMessage().contains("RFC 8200"), zero.getMessage());
    }

    @Test
    void ipv6HeaderIsRefusedWhenWrong() {
        MemorySegment s = MemorySegment.ofArray(new byte[40]);
        Ipv6Header.write(s, 0, 1, 17, 64, 0, 0, 0, 0);
        assertEquals("IPv6 payload length", assertThrows(DecodeException.class, () -> Ipv6Header.validate(s, 0, 40)).field());
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x40);
        assertEquals("IPv6 version", assertThrows(DecodeException.class, () -> Ipv6Header.validate(s, 0, 41 - 1)).field());
        assertThrows(DecodeException.class, () -> Ipv6Header.validate(s, 0, 39));
    }

    @Test
    void oddLengthsAreChecksummedWithAZeroPad() {
        MemorySegment s = hex("0102 0304 05");
        assertEquals(referenceChecksum(new byte[] {1, 2, 3, 4, 5}), InternetChecksum.checksum(s, 0, 5));
        MemorySegment long_ = MemorySegment.ofArray(new byte[1001]);
        byte[] ref = new byte[1001];
        for (int i = 0; i < 1001; i++) {
            ref[i] = (byte) (i * 31 + 7);
            long_.set(ValueLayout.JAVA_BYTE, i, ref[i]);
        }
        for (int off = 0; off < 9; off++) {
            byte[] part = java.util.Arrays.copyOfRange(ref, off, 1001);
            assertEquals(referenceChecksum(part), InternetChecksum.checksum(long_, off, 1001 - off), "offset " + off);
        }
    }

    @Test
    void longDataAddsUpAsTheWordsDoWhateverTheirValues() {
        java.util.Random random = new java.util.Random(4391);
        for (int length : new int[] {256, 257, 1500, 2016, 2043, 9000, 65000}) {
            for (byte fill : new byte[] {0, (byte) 0xFF, 1}) {
                byte[] data = new byte[length];
                if (fill == 1) {
                    random.nextBytes(data);
                } else {
                    java.util.Arrays.fill(data, fill);
                }
                MemorySegment native_ = java.lang.foreign.Arena.ofAuto().allocate(length + 3);
                MemorySegment.copy(MemorySegment.ofArray(data), 0, native_, 3, length);
                String what = length + " octets of " + fill;
                assertEquals(referenceChecksum(data), InternetChecksum.checksum(native_, 3, length), what);
                // Summed in pieces and with a stored word taken out again, as the TCP and IPv4 code does.
                long pieces = InternetChecksum.sum(native_, 3, 256) + InternetChecksum.sum(native_, 3 + 256, length - 256);
                assertEquals(referenceChecksum(data), InternetChecksum.complement(pieces), what + " in pieces");
                int word = Short.toUnsignedInt(native_.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 3));
                byte[] rest = java.util.Arrays.copyOfRange(data, 2, length);
                assertEquals(referenceChecksum(rest),
                        InternetChecksum.complement(InternetChecksum.sum(native_, 3, length) - word), what + " without its first word");
            }
        }
    }
}
