package ipoib.codec.ip;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The IPv6 header (RFC 8200 §3): version 6, traffic class, flow label, payload length, next
 * header, hop limit, source and destination address; 40 octets. Extension headers are not
 * written, and on receive the caller looks at {@link #nextHeader} only.
 */
public final class Ipv6Header {
    private Ipv6Header() {}

    /** Length of the header. */
    public static final int LENGTH = 40;
    /** Next header of UDP. */
    public static final int NEXT_HEADER_UDP = 17;
    /** Next header of ICMPv6. */
    public static final int NEXT_HEADER_ICMPV6 = 58;
    /** The smallest link MTU IPv6 allows (RFC 8200 §5). */
    public static final int MIN_MTU = 1280;

    /**
     * Writes the header (traffic class and flow label zero).
     *
     * @return {@link #LENGTH}
     * @throws IllegalArgumentException for a payload length, next header or hop limit outside its field
     * @throws IndexOutOfBoundsException when 40 octets do not fit at {@code offset}
     */
    public static int write(MemorySegment buf, long offset, int payloadLength, int nextHeader, int hopLimit,
                            long sourceHigh, long sourceLow, long destinationHigh, long destinationLow) {
        if (payloadLength < 0 || payloadLength > 0xFFFF || nextHeader < 0 || nextHeader > 255 || hopLimit < 0
                || hopLimit > 255) {
            throw new IllegalArgumentException("IPv6 payload length " + payloadLength + ", next header " + nextHeader
                    + " or hop limit " + hopLimit + " does not fit its field");
        }
        if (offset < 0 || offset > buf.byteSize() - LENGTH) {
            throw new IndexOutOfBoundsException("IPv6 header needs 40 octets at offset " + offset + " of a "
                    + buf.byteSize() + "-octet buffer");
        }
        Wire.put32(buf, offset, 6 << 28);
        Wire.put16(buf, offset + 4, payloadLength);
        Wire.put8(buf, offset + 6, nextHeader);
        Wire.put8(buf, offset + 7, hopLimit);
        Wire.put64(buf, offset + 8, sourceHigh);
        Wire.put64(buf, offset + 16, sourceLow);
        Wire.put64(buf, offset + 24, destinationHigh);
        Wire.put64(buf, offset + 32, destinationLow);
        return LENGTH;
    }

    /**
     * Checks the header of a packet of {@code length} octets: version 6 and a payload length
     * that fits (octets beyond it are padding).
     *
     * @return the payload length
     * @throws DecodeException for a truncated header, another version or a payload length
     *     longer than the packet
     */
    public static int validate(MemorySegment buf, long offset, long length) throws DecodeException {
        if (length < LENGTH) {
            throw new DecodeException("IPv6 header", offset, "truncated: needs 40 octets, " + Math.max(0, length)
                    + " available");
        }
        Wire.require(buf, offset, length, "IPv6 packet");
        int version = Wire.u8(buf, offset) >>> 4;
        if (version != 6) {
            throw new DecodeException("IPv6 version", offset, "is " + version + ", expected 6");
        }
        int payloadLength = Wire.u16(buf, offset + 4);
        if (payloadLength > length - LENGTH) {
            throw new DecodeException("IPv6 payload length", offset + 4, "is " + payloadLength + " but only "
                    + (length - LENGTH) + " octets follow the header");
        }
        return payloadLength;
    }

    public static int payloadLength(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u16(buf, offset + 4);
    }

    public static int nextHeader(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u8(buf, offset + 6);
    }

    public static int hopLimit(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u8(buf, offset + 7);
    }

    public static long sourceHigh(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u64(buf, offset + 8);
    }

    public static long sourceLow(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u64(buf, offset + 16);
    }

    public static long destinationHigh(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u64(buf, offset + 24);
    }

    public static long destinationLow(MemorySegment buf, long offset) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return Wire.u64(buf, offset + 32);
    }

    /**
     * The unfolded sum of the upper-layer pseudo-header (RFC 8200 §8.1) of the packet whose
     * header is at {@code offset}: both addresses, the 32-bit upper-layer length and the next header.
     */
    public static long pseudoHeaderSum(MemorySegment buf, long offset, int upperLayerLength, int nextHeader) {
        Wire.check(buf, offset, LENGTH, "IPv6 header");
        return InternetChecksum.sum(buf, offset + 8, 32) + InternetChecksum.sum32(upperLayerLength) + nextHeader;
    }
}
