package ipoib.codec.iba;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class IcrcVcrcTest {

    /**
     * A RoCEv2 CNP captured on a ConnectX-4 Lx (published with Scapy's RoCE tests): real hardware
     * output. RoCEv2 computes its ICRC like a global IBA packet (eight octets of ones for the
     * absent LRH, then the IP/UDP headers in place of the GRH with their variant fields masked).
     * Feeding the same masked octets to our CRC-32 engine must give the octets on the wire: this
     * pins polynomial, bit order, preset, complement and the little-endian octet order.
     */
    @Test
    void crc32EngineReproducesTheIcrcOfAFrameCapturedFromRdmaHardware() {
        byte[] frame = HexFormat.of().parseHex("""
                e41d2dab2bc27cfe90643b32080045c2
                003c718c4000401191610a0011010a00
                1201000012b7002800008100ffff4000
                01180000000000000000000000000000
                00000000000082fd002a""".replaceAll("\\s", ""));
        byte[] masked = java.util.Arrays.copyOfRange(frame, 14, frame.length - 4);
        masked[1] = (byte) 0xFF; // IPv4 TOS
        masked[8] = (byte) 0xFF; // TTL
        masked[10] = masked[11] = (byte) 0xFF; // header checksum
        masked[26] = masked[27] = (byte) 0xFF; // UDP checksum
        masked[28 + 4] = (byte) 0xFF; // BTH Resv8a (FECN, BECN, reserved)
        int register = ~0;
        for (int i = 0; i < 8; i++) {
            register = Crc.crc32(register, 0xFF);
        }
        register = Crc.crc32(register, MemorySegment.ofArray(masked), 0, masked.length);
        int icrc = ~register;
        byte[] wire = java.util.Arrays.copyOfRange(frame, frame.length - 4, frame.length);
        assertEquals("82fd002a", HexFormat.of().formatHex(new byte[] {(byte) icrc, (byte) (icrc >>> 8),
                (byte) (icrc >>> 16), (byte) (icrc >>> 24)}));
        assertEquals("82fd002a", HexFormat.of().formatHex(wire));
    }

    /** rxe_icrc.c seeds its CRC with 0xDEBB20E3, "the result of a CRC over 8 octets of 0xFF". */
    @Test
    void registerAfterEightOctetsOfOnesIsTheSoftRoceSeed() {
        int register = ~0;
        for (int i = 0; i < 8; i++) {
            register = Crc.crc32(register, 0xFF);
        }
        assertEquals(0xDEBB20E3, register);
    }

    /** The check value (CRC of "123456789") of the VCRC parameters, from the bit-serial model. */
    @Test
    void vcrcCheckValue() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x0A3D, IndependentCrc.vcrc(check, check.length));
        assertEquals(0x0A3D, ~Crc.crc16(0xFFFF, MemorySegment.ofArray(check), 0, check.length) & 0xFFFF);
    }

    @Provide
    Arbitrary<IndependentPacket> packets() {
        return PacketArbitraries.packets(300);
    }

    @Property(tries = 300)
    void icrcEqualsCrc32OfTheMaskedCopy(@ForAll("packets") IndependentPacket description) {
        byte[] packet = description.build();
        int icrcOffset = packet.length - 6;
        assertEquals(IndependentCrc.icrc(packet, icrcOffset),
                Icrc.compute(MemorySegment.ofArray(packet), 0, icrcOffset));
        assertEquals(IndependentCrc.icrc(packet, icrcOffset), Icrc.read(MemorySegment.ofArray(packet), 0, icrcOffset));
    }

    @Property(tries = 300)
    void vcrcEqualsTheBitSerialModel(@ForAll("packets") IndependentPacket description) {
        byte[] packet = description.build();
        assertEquals(IndependentCrc.vcrc(packet, packet.length - 2),
                Vcrc.compute(MemorySegment.ofArray(packet), 0, packet.length - 2));
    }

    /**
     * Sent least significant octet first, the VCRC leaves a receiver that runs the CRC over the
     * whole packet (VCRC included) with the same register for every packet.
     */
    @Test
    void vcrcSentLowOctetFirstLeavesAConstantResidue() {
        Set<Integer> residues = new HashSet<>();
        net.jqwik.api.Arbitrary<IndependentPacket> arbitrary = PacketArbitraries.packets(64);
        arbitrary.sampleStream().limit(50).forEach(d -> {
            byte[] packet = d.build();
            residues.add(IndependentCrc.vcrcRegister(packet, packet.length));
        });
        assertEquals(1, residues.size(), "residues " + residues);
    }

    @Property(tries = 200)
    void icrcIgnoresVariantFieldsAndCoversTheRest(@ForAll("packets") IndependentPacket description) {
        byte[] packet = description.build();
        MemorySegment segment = MemorySegment.ofArray(packet);
        int icrcOffset = packet.length - 6;
        int icrc = Icrc.compute(segment, 0, icrcOffset);
        boolean global = description.global();
        int bth = global ? 48 : 8;
        byte[] variant = packet.clone();
        variant[0] ^= (byte) 0xA0; // VL
        variant[bth + 4] ^= (byte) 0x5A; // Resv8a
        if (global) {
            variant[1] ^= 0x40; // SL: a router may rewrite the whole LRH
            variant[2] ^= 0x01; // DLID
            variant[8] ^= 0x0F; // TClass (high nibble)
            variant[10] ^= (byte) 0xFF; // FlowLabel
            variant[15] ^= (byte) 0xFF; // HopLmt
        }
        assertEquals(icrc, Icrc.compute(MemorySegment.ofArray(variant), 0, icrcOffset));

        byte[] invariant = packet.clone();
        invariant[bth + 2] ^= 0x01; // P_Key
        assertNotEquals(icrc, Icrc.compute(MemorySegment.ofArray(invariant), 0, icrcOffset));
        if (global) {
            byte[] dgid = packet.clone();
            dgid[47] ^= 0x01;
            assertNotEquals(icrc, Icrc.compute(MemorySegment.ofArray(dgid), 0, icrcOffset));
        } else {
            byte[] dlid = packet.clone();
            dlid[3] ^= 0x01;
            assertNotEquals(icrc, Icrc.compute(MemorySegment.ofArray(dlid), 0, icrcOffset));
        }
    }

    @Test
    void verifyNamesTheCrcAndItsOffset() {
        byte[] packet = KnownPackets.local();
        MemorySegment segment = MemorySegment.ofArray(packet);
        packet[packet.length - 1] ^= 1;
        DecodeException vcrc = assertThrows(DecodeException.class, () -> Vcrc.verify(segment, 0, packet.length - 2));
        assertEquals("VCRC", vcrc.field());
        assertEquals(packet.length - 2, vcrc.offset());
        packet[packet.length - 6] ^= 1;
        DecodeException icrc = assertThrows(DecodeException.class, () -> Icrc.verify(segment, 0, packet.length - 6));
        assertEquals("ICRC", icrc.field());
        assertEquals(packet.length - 6, icrc.offset());
    }

    @Test
    void rawPacketsAndShortOffsetsHaveNoIcrc() {
        byte[] packet = KnownPackets.local();
        MemorySegment segment = MemorySegment.ofArray(packet);
        assertThrows(IllegalArgumentException.class, () -> Icrc.compute(segment, 0, 8 + 11));
        packet[1] &= (byte) 0xFC; // LNH raw
        assertThrows(IllegalArgumentException.class, () -> Icrc.compute(segment, 0, packet.length - 6));
    }

    @Test
    void writeStoresLowOctetFirst() {
        byte[] packet = KnownPackets.local();
        MemorySegment segment = MemorySegment.ofArray(packet);
        int icrc = Icrc.write(segment, 0, packet.length - 6);
        int vcrc = Vcrc.write(segment, 0, packet.length - 2);
        assertEquals((byte) icrc, packet[packet.length - 6]);
        assertEquals((byte) (icrc >>> 24), packet[packet.length - 3]);
        assertEquals((byte) vcrc, packet[packet.length - 2]);
        assertEquals((byte) (vcrc >>> 8), packet[packet.length - 1]);
    }
}
