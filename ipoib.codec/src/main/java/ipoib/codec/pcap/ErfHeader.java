package ipoib.codec.pcap;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 16-octet header of an Endace ERF record (ERF types reference, "Generic ERF header"), as it
 * begins each packet of a {@link LinkType#ERF} capture.
 *
 * <pre>
 * 0-7: timestamp, little-endian 32.32 fixed point seconds since 1970
 * 8: type (7 bits; bit 7: extension headers follow)    9: flags
 * 10-11: rlen, record length with this header    12-13: lctr, loss counter    14-15: wlen, wire length
 * </pre>
 *
 * <p>Type 21 ({@link #TYPE_INFINIBAND}) records carry a whole IBA packet, LRH through VCRC, right
 * after the header; Wireshark hands it to its InfiniBand dissector.
 *
 * @param timestamp the raw 64-bit fixed-point timestamp ({@link #timestampOf})
 * @param type 8 bits, extension-header bit included
 * @param flags 8 bits
 * @param recordLength rlen, 16 bits
 * @param lossCounter lctr, 16 bits
 * @param wireLength wlen, 16 bits
 */
public record ErfHeader(long timestamp, int type, int flags, int recordLength, int lossCounter, int wireLength) {

    /** Length of the header in octets. */
    public static final int LENGTH = 16;
    /** ERF_TYPE_INFINIBAND. */
    public static final int TYPE_INFINIBAND = 21;
    /** Type bit: extension headers follow the 16 octets. */
    public static final int TYPE_EXTENSION_HEADER = 0x80;
    /** Flag: varying record length (records are not padded). */
    public static final int FLAG_VARYING_LENGTH = 0x04;
    /** Flag: the record was truncated. */
    public static final int FLAG_TRUNCATED = 0x08;

    private static final ValueLayout.OfLong LITTLE_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /**
     * @throws IllegalArgumentException when a field does not fit its width
     */
    public ErfHeader {
        checkBits("ERF type", type, 8);
        checkBits("ERF flags", flags, 8);
        checkBits("ERF rlen", recordLength, 16);
        checkBits("ERF lctr", lossCounter, 16);
        checkBits("ERF wlen", wireLength, 16);
    }

    /**
     * The ERF timestamp of an instant in nanoseconds since 1970: seconds in the upper 32 bits, the
     * binary fraction rounded up so that converting back (rounding down) gives the same nanosecond.
     */
    public static long timestampOf(long epochNanos) {
        long seconds = Math.floorDiv(epochNanos, NANOS_PER_SECOND);
        long nanos = Math.floorMod(epochNanos, NANOS_PER_SECOND);
        long fraction = ((nanos << 32) + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND;
        return (seconds << 32) + fraction;
    }

    /** The timestamp in nanoseconds since 1970 (fraction rounded down). */
    public long epochNanos() {
        return (timestamp >>> 32) * NANOS_PER_SECOND + ((timestamp & 0xFFFF_FFFFL) * NANOS_PER_SECOND >>> 32);
    }

    /** Whether extension headers follow. */
    public boolean hasExtensionHeaders() {
        return (type & TYPE_EXTENSION_HEADER) != 0;
    }

    /** Writes the 16 octets at {@code offset}. */
    public void encode(MemorySegment segment, long offset) {
        write(segment, offset, timestamp, type, flags, recordLength, lossCounter, wireLength);
    }

    /**
     * Writes a header from its fields without building a record (the capture path).
     *
     * @throws IndexOutOfBoundsException when 16 octets do not fit at {@code offset}
     */
    public static void write(MemorySegment segment, long offset, long timestamp, int type, int flags,
                             int recordLength, int lossCounter, int wireLength) {
        Wire.check(segment, offset, LENGTH, "ERF header");
        segment.set(LITTLE_ENDIAN_LONG, offset, timestamp);
        Wire.put8(segment, offset + 8, type);
        Wire.put8(segment, offset + 9, flags);
        Wire.put16(segment, offset + 10, recordLength);
        Wire.put16(segment, offset + 12, lossCounter);
        Wire.put16(segment, offset + 14, wireLength);
    }

    /**
     * Reads the 16 octets at {@code offset}.
     *
     * @throws DecodeException when fewer than 16 octets remain ("ERF header") or rlen is shorter
     *                         than the header ("ERF rlen")
     */
    public static ErfHeader decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "ERF header");
        int rlen = Wire.u16(segment, offset + 10);
        if (rlen < LENGTH) {
            throw new DecodeException("ERF rlen", offset + 10, "record length " + rlen + " is shorter than its header");
        }
        return new ErfHeader(segment.get(LITTLE_ENDIAN_LONG, offset), Wire.u8(segment, offset + 8),
                Wire.u8(segment, offset + 9), rlen, Wire.u16(segment, offset + 12), Wire.u16(segment, offset + 14));
    }

    private static void checkBits(String field, int value, int bits) {
        if (value < 0 || value >= 1 << bits) {
            throw new IllegalArgumentException(field + " " + value + " does not fit " + bits + " bits");
        }
    }
}
