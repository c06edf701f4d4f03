package ipoib.netdev.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The Internet checksum (RFC 1071): the ones'-complement sum of 16-bit big-endian words. Summed
 * here as 32-bit words into a long and folded at the end, which RFC 1071 §2(B) allows (the sum
 * is independent of the word size).
 */
final class InternetChecksum {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private InternetChecksum() {}

    /** {@code sum} plus the words of {@code length} octets at {@code offset} (an odd last octet padded with zero). */
    static long add(MemorySegment s, long offset, int length, long sum) {
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            sum += s.get(INT_BE, offset + i) & 0xFFFF_FFFFL;
        }
        if (i + 2 <= length) {
            sum += s.get(SHORT_BE, offset + i) & 0xFFFF;
            i += 2;
        }
        if (i < length) {
            sum += (s.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF) << 8;
        }
        return sum;
    }

    /** The 16-bit ones'-complement sum of {@code sum}. */
    static int fold(long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    /**
     * Stores the checksum of a sum at {@code at}: its complement, and 0xFFFF for a complement of
     * zero, as Linux's {@code skb_checksum_help} (net/core/dev.c: {@code csum_fold(csum) ?: CSUM_MANGLED_0})
     * does for a checksum a device completes.
     */
    static void store(MemorySegment s, long at, long sum) {
        int checksum = ~fold(sum) & 0xFFFF;
        s.set(SHORT_BE, at, (short) (checksum == 0 ? 0xFFFF : checksum));
    }
}
