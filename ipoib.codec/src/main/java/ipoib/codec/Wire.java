package ipoib.codec;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian (network order) access to a {@link MemorySegment} at unaligned offsets, and the
 * length check every decoder starts with.
 */
public final class Wire {
    private Wire() {}

    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Checks that {@code length} octets from {@code offset} lie inside the segment.
     *
     * @throws DecodeException naming {@code what} when they do not
     */
    public static void require(MemorySegment segment, long offset, long length, String what) throws DecodeException {
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new DecodeException(what, offset, "truncated: needs " + length + " octets, "
                    + Math.max(0, segment.byteSize() - Math.max(0, offset)) + " available");
        }
    }

    /**
     * Checks that {@code length} octets from {@code offset} lie inside a segment the caller
     * passed (a buffer to write into, or a header it validated before reading its fields).
     *
     * @throws IndexOutOfBoundsException naming {@code what}, the octets needed, the offset and the
     *                                   segment's size when they do not
     */
    public static void check(MemorySegment segment, long offset, long length, String what) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException(what + " needs " + length + " octets at offset " + offset + " of a "
                    + segment.byteSize() + "-octet segment");
        }
    }

    /** The raw accessors below check nothing themselves: {@link IndexOutOfBoundsException} from the segment. */
    public static int u8(MemorySegment s, long offset) {
        return s.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
    }

    public static int u16(MemorySegment s, long offset) {
        return s.get(U16, offset) & 0xFFFF;
    }

    /** 24-bit big-endian value (QPNs). */
    public static int u24(MemorySegment s, long offset) {
        return u8(s, offset) << 16 | u16(s, offset + 1);
    }

    public static int u32(MemorySegment s, long offset) {
        return s.get(U32, offset);
    }

    public static long u64(MemorySegment s, long offset) {
        return s.get(U64, offset);
    }

    public static void put8(MemorySegment s, long offset, int value) {
        s.set(ValueLayout.JAVA_BYTE, offset, (byte) value);
    }

    public static void put16(MemorySegment s, long offset, int value) {
        s.set(U16, offset, (short) value);
    }

    public static void put24(MemorySegment s, long offset, int value) {
        put8(s, offset, value >>> 16);
        put16(s, offset + 1, value);
    }

    public static void put32(MemorySegment s, long offset, int value) {
        s.set(U32, offset, value);
    }

    public static void put64(MemorySegment s, long offset, long value) {
        s.set(U64, offset, value);
    }
}
