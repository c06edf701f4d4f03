package ipoib.codec.iba;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The Variant CRC of an IBA packet (IBA 1.2.1 §7.8.2): a CRC-16 over the whole packet from the
 * first LRH octet through the ICRC, recomputed by every switch (it covers the fields they
 * change).
 *
 * <p>Parameters: polynomial x<sup>16</sup>+x<sup>12</sup>+x<sup>3</sup>+x+1 (0x100B), register
 * preset to 0xFFFF, bits taken least significant first (reflected, as for the ICRC), result
 * complemented; sent least significant octet first. These are the parameters of the IBA link
 * layer as implemented by Endace's InfiniBand capture cards ({@code dagcrc_infiniband_vcrc16_r}:
 * reflected table of 0xD008, preset and final complement 0xFFFF). With this octet order a
 * receiver that runs the same CRC over the packet including its VCRC always ends on one constant
 * register (the tests check this residue), the property a link-layer checker relies on.
 * Computed in place, without copying or allocating.
 */
public final class Vcrc {
    private Vcrc() {}

    /** Length of the VCRC in octets. */
    public static final int LENGTH = 2;

    private static final ValueLayout.OfShort LITTLE_ENDIAN_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * The VCRC of the first {@code vcrcOffset} octets of the packet at {@code offset}.
     *
     * @return the 16-bit value; on the wire its least significant octet comes first
     * @throws IndexOutOfBoundsException when those octets do not lie in the segment
     */
    public static int compute(MemorySegment packet, long offset, int vcrcOffset) {
        Wire.check(packet, offset, vcrcOffset, "packet covered by the VCRC");
        return ~Crc.crc16(0xFFFF, packet, offset, vcrcOffset) & 0xFFFF;
    }

    /**
     * Reads the VCRC field at {@code offset + vcrcOffset} (little-endian).
     *
     * @throws IndexOutOfBoundsException when the field does not lie in the segment
     */
    public static int read(MemorySegment packet, long offset, int vcrcOffset) {
        checkField(packet, offset, vcrcOffset);
        return packet.get(LITTLE_ENDIAN_SHORT, offset + vcrcOffset) & 0xFFFF;
    }

    /**
     * Computes the VCRC and writes it at {@code offset + vcrcOffset}.
     *
     * @return the value written
     * @throws IndexOutOfBoundsException when the packet and its VCRC field do not lie in the segment
     */
    public static int write(MemorySegment packet, long offset, int vcrcOffset) {
        checkField(packet, offset, vcrcOffset);
        int vcrc = compute(packet, offset, vcrcOffset);
        packet.set(LITTLE_ENDIAN_SHORT, offset + vcrcOffset, (short) vcrc);
        return vcrc;
    }

    /**
     * Checks the VCRC field against the packet.
     *
     * @throws DecodeException naming "VCRC" and its offset when they differ, or when the packet and
     *                         its VCRC do not lie in the segment
     */
    public static void verify(MemorySegment packet, long offset, int vcrcOffset) throws DecodeException {
        if (vcrcOffset < 0) {
            throw new DecodeException("VCRC", offset, "VCRC offset " + vcrcOffset + " is negative");
        }
        Wire.require(packet, offset, (long) vcrcOffset + LENGTH, "VCRC");
        int expected = compute(packet, offset, vcrcOffset);
        int found = read(packet, offset, vcrcOffset);
        if (expected != found) {
            throw new DecodeException("VCRC", offset + vcrcOffset,
                    String.format("packet carries 0x%04x, its octets give 0x%04x", found, expected));
        }
    }

    private static void checkField(MemorySegment packet, long offset, int vcrcOffset) {
        if (offset < 0 || vcrcOffset < 0) {
            throw new IndexOutOfBoundsException("VCRC field needs offset " + offset + " and VCRC offset "
                    + vcrcOffset + " to be 0 or more");
        }
        Wire.check(packet, offset + vcrcOffset, LENGTH, "VCRC field");
    }
}
