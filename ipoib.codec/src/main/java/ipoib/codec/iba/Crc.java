package ipoib.codec.iba;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The two CRC engines of IBA packets, both bit-reflected (least significant bit of each octet
 * first, as the bits are sent) and table-driven: CRC-32 with the Ethernet polynomial 0x04C11DB7
 * (reflected 0xEDB88320) for the ICRC, CRC-16 with the IBA polynomial
 * x<sup>16</sup>+x<sup>12</sup>+x<sup>3</sup>+x+1 = 0x100B (reflected 0xD008) for the VCRC. Callers
 * start with all ones and complement the final register (IBA §7.8.1, §7.8.2).
 */
final class Crc {
    private Crc() {}

    private static final int[] CRC32_TABLE = new int[256];
    private static final char[] CRC16_TABLE = new char[256];

    static {
        for (int n = 0; n < 256; n++) {
            int c32 = n;
            int c16 = n;
            for (int k = 0; k < 8; k++) {
                c32 = (c32 & 1) != 0 ? c32 >>> 1 ^ 0xEDB8_8320 : c32 >>> 1;
                c16 = (c16 & 1) != 0 ? c16 >>> 1 ^ 0xD008 : c16 >>> 1;
            }
            CRC32_TABLE[n] = c32;
            CRC16_TABLE[n] = (char) c16;
        }
    }

    /** One octet into a CRC-32 register. */
    static int crc32(int register, int octet) {
        return CRC32_TABLE[(register ^ octet) & 0xFF] ^ register >>> 8;
    }

    /** {@code length} octets of {@code segment} from {@code offset} into a CRC-32 register. */
    static int crc32(int register, MemorySegment segment, long offset, long length) {
        int r = register;
        for (long i = 0; i < length; i++) {
            r = CRC32_TABLE[(r ^ segment.get(ValueLayout.JAVA_BYTE, offset + i)) & 0xFF] ^ r >>> 8;
        }
        return r;
    }

    /** {@code length} octets of {@code segment} from {@code offset} into a CRC-16 register. */
    static int crc16(int register, MemorySegment segment, long offset, long length) {
        int r = register;
        for (long i = 0; i < length; i++) {
            r = CRC16_TABLE[(r ^ segment.get(ValueLayout.JAVA_BYTE, offset + i)) & 0xFF] ^ r >>> 8;
        }
        return r;
    }
}
