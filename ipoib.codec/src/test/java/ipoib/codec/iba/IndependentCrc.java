package ipoib.codec.iba;

import java.util.zip.CRC32;

/**
 * Reference computations of the IBA CRCs written independently of the code under test: the ICRC
 * with {@link CRC32} over a masked copy built field by field, the VCRC with a bit-serial shift
 * register that uses the polynomial 0x100B as IBA §7.8.2 writes it (most significant bit first,
 * on bit-reversed octets, result bit-reversed back and complemented).
 */
final class IndependentCrc {
    private IndependentCrc() {}

    /** The ICRC of {@code packet[0 .. icrcOffset)}, masked per IBA §7.8.1. */
    static int icrc(byte[] packet, int icrcOffset) {
        boolean global = (packet[1] & 0x3) == 3;
        byte[] masked;
        if (global) {
            // eight octets of ones instead of the LRH, then GRH .. end of payload
            masked = new byte[icrcOffset];
            java.util.Arrays.fill(masked, 0, 8, (byte) 0xFF);
            System.arraycopy(packet, 8, masked, 8, icrcOffset - 8);
            masked[8] |= 0x0F; // TClass, high nibble
            masked[9] = masked[10] = masked[11] = (byte) 0xFF; // TClass low nibble, FlowLabel
            masked[15] = (byte) 0xFF; // HopLmt
            masked[48 + 4] = (byte) 0xFF; // BTH Resv8a
        } else {
            masked = java.util.Arrays.copyOf(packet, icrcOffset);
            masked[0] |= (byte) 0xF0; // VL
            masked[8 + 4] = (byte) 0xFF; // BTH Resv8a
        }
        CRC32 crc = new CRC32();
        crc.update(masked);
        return (int) crc.getValue();
    }

    /** The VCRC of {@code data[0 .. length)}. */
    static int vcrc(byte[] data, int length) {
        return reverse16(vcrcRegister(data, length)) ^ 0xFFFF;
    }

    /** The shift register (most-significant-first form) after {@code length} octets, preset 0xFFFF. */
    static int vcrcRegister(byte[] data, int length) {
        int register = 0xFFFF;
        for (int i = 0; i < length; i++) {
            register ^= reverse8(data[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                register = (register & 0x8000) != 0 ? register << 1 ^ 0x100B : register << 1;
                register &= 0xFFFF;
            }
        }
        return register;
    }

    static int reverse8(int b) {
        return Integer.reverse(b) >>> 24;
    }

    static int reverse16(int v) {
        return Integer.reverse(v) >>> 16;
    }
}
