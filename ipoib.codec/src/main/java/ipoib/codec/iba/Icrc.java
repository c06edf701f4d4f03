package ipoib.codec.iba;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The Invariant CRC of an IBA transport packet (IBA 1.2.1 §7.8.1): a CRC-32 over every field that
 * no switch or router changes, the variant fields being replaced by ones for the calculation.
 *
 * <ul>
 * <li>Local packet (LNH = IBA local): the LRH with its VL nibble replaced by ones, the BTH with
 * Resv8a replaced by ones, the extended headers, the payload and its pad.</li>
 * <li>Global packet (LNH = IBA global): eight octets of ones in place of the whole LRH (a router
 * rewrites it), the GRH with TClass, FlowLabel and HopLmt replaced by ones (IPVer, PayLen, NxtHdr,
 * SGID and DGID are covered), then the BTH with Resv8a replaced by ones, the extended headers, the
 * payload and its pad.</li>
 * </ul>
 *
 * <p>The CRC is the Ethernet one: polynomial 0x04C11DB7, register preset to all ones, bits taken
 * least significant first, result complemented, exactly what {@link java.util.zip.CRC32} computes
 * over the masked octets. It is sent least significant octet first (little-endian). This is the
 * convention of Linux soft-RoCE ({@code rxe_icrc.c}, which starts from the register after eight
 * octets of ones, 0xDEBB20E3, and stores {@code ~crc} in CPU order on little-endian hosts) and of
 * the ICRCs that RDMA hardware puts on the wire (the tests check a frame captured from a
 * ConnectX-4 Lx). Computed in place, without copying or allocating.
 */
public final class Icrc {
    private Icrc() {}

    /** Length of the ICRC in octets. */
    public static final int LENGTH = 4;

    private static final ValueLayout.OfInt LITTLE_ENDIAN_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * The ICRC of the packet at {@code offset}, covering its first {@code icrcOffset} octets (the
     * ICRC field itself starts there). Local or global is taken from the LRH's LNH.
     *
     * @return the CRC-32 value ({@link java.util.zip.CRC32#getValue()} as an {@code int}); on the
     *         wire its least significant octet comes first
     * @throws IllegalArgumentException when LNH does not announce an IBA transport packet (raw
     *                                  packets have no ICRC) or {@code icrcOffset} ends inside the
     *                                  headers
     * @throws IndexOutOfBoundsException when the {@code icrcOffset} octets at {@code offset} do not
     *                                   lie in the segment
     */
    public static int compute(MemorySegment packet, long offset, int icrcOffset) {
        if (icrcOffset < Lrh.LENGTH + Bth.LENGTH) {
            throw new IllegalArgumentException("ICRC offset " + icrcOffset + " lies inside the headers (BTH ends at "
                    + (Lrh.LENGTH + Bth.LENGTH) + " or later)");
        }
        Wire.check(packet, offset, icrcOffset, "packet covered by the ICRC");
        int lnh = Wire.u8(packet, offset + 1) & 0x3;
        if (lnh != Lrh.LNH_IBA_LOCAL && lnh != Lrh.LNH_IBA_GLOBAL) {
            throw new IllegalArgumentException("LNH " + lnh + " is a raw packet, which has no ICRC");
        }
        boolean global = lnh == Lrh.LNH_IBA_GLOBAL;
        int bthOffset = Lrh.LENGTH + (global ? Grh.LENGTH : 0);
        if (icrcOffset < bthOffset + Bth.LENGTH) {
            throw new IllegalArgumentException("ICRC offset " + icrcOffset + " lies inside the headers (BTH ends at "
                    + (bthOffset + Bth.LENGTH) + ")");
        }
        return crc(packet, offset, icrcOffset, global, bthOffset);
    }

    private static int crc(MemorySegment packet, long offset, int icrcOffset, boolean global, int bthOffset) {
        int r = ~0;
        if (global) {
            for (int i = 0; i < Lrh.LENGTH; i++) {
                r = Crc.crc32(r, 0xFF);
            }
            long grh = offset + Lrh.LENGTH;
            r = Crc.crc32(r, Wire.u8(packet, grh) | 0x0F); // IPVer kept, TClass high nibble masked
            r = Crc.crc32(r, 0xFF); // TClass low nibble, FlowLabel
            r = Crc.crc32(r, 0xFF);
            r = Crc.crc32(r, 0xFF);
            r = Crc.crc32(r, packet, grh + 4, 3); // PayLen, NxtHdr
            r = Crc.crc32(r, 0xFF); // HopLmt
            r = Crc.crc32(r, packet, grh + 8, 32); // SGID, DGID
        } else {
            r = Crc.crc32(r, Wire.u8(packet, offset) | 0xF0); // VL masked, LVer kept
            r = Crc.crc32(r, packet, offset + 1, Lrh.LENGTH - 1);
        }
        long bth = offset + bthOffset;
        r = Crc.crc32(r, packet, bth, 4);
        r = Crc.crc32(r, 0xFF); // Resv8a
        r = Crc.crc32(r, packet, bth + 5, icrcOffset - bthOffset - 5);
        return ~r;
    }

    /**
     * Reads the ICRC field at {@code offset + icrcOffset} (little-endian).
     *
     * @throws IndexOutOfBoundsException when the field does not lie in the segment
     */
    public static int read(MemorySegment packet, long offset, int icrcOffset) {
        checkField(packet, offset, icrcOffset);
        return packet.get(LITTLE_ENDIAN_INT, offset + icrcOffset);
    }

    private static void checkField(MemorySegment packet, long offset, int icrcOffset) {
        if (offset < 0 || icrcOffset < 0) {
            throw new IndexOutOfBoundsException("ICRC field needs offset " + offset + " and ICRC offset "
                    + icrcOffset + " to be 0 or more");
        }
        Wire.check(packet, offset + icrcOffset, LENGTH, "ICRC field");
    }

    /**
     * Computes the ICRC and writes it at {@code offset + icrcOffset}.
     *
     * @return the value written
     * @throws IllegalArgumentException as {@link #compute}
     * @throws IndexOutOfBoundsException when the packet and its ICRC field do not lie in the segment
     */
    public static int write(MemorySegment packet, long offset, int icrcOffset) {
        checkField(packet, offset, icrcOffset);
        int icrc = compute(packet, offset, icrcOffset);
        packet.set(LITTLE_ENDIAN_INT, offset + icrcOffset, icrc);
        return icrc;
    }

    /**
     * Checks the ICRC field against the packet.
     *
     * @throws DecodeException naming "ICRC" and its offset when they differ, when the packet and
     *                         its ICRC do not lie in the segment, when {@code icrcOffset} ends
     *                         inside the headers or LNH announces a raw packet (no ICRC)
     */
    public static void verify(MemorySegment packet, long offset, int icrcOffset) throws DecodeException {
        if (icrcOffset < Lrh.LENGTH + Bth.LENGTH) {
            throw new DecodeException("ICRC", offset + icrcOffset, "ICRC offset " + icrcOffset
                    + " lies inside the headers (an LRH and a BTH take " + (Lrh.LENGTH + Bth.LENGTH) + " octets)");
        }
        Wire.require(packet, offset, (long) icrcOffset + LENGTH, "ICRC");
        int lnh = Wire.u8(packet, offset + 1) & 0x3;
        if (lnh != Lrh.LNH_IBA_LOCAL && lnh != Lrh.LNH_IBA_GLOBAL) {
            throw new DecodeException("LRH LNH", offset + 1, "LNH " + lnh + " is a raw packet, which has no ICRC");
        }
        if (lnh == Lrh.LNH_IBA_GLOBAL && icrcOffset < Lrh.LENGTH + Grh.LENGTH + Bth.LENGTH) {
            throw new DecodeException("ICRC", offset + icrcOffset, "ICRC offset " + icrcOffset
                    + " lies inside the headers (LRH, GRH and BTH take " + (Lrh.LENGTH + Grh.LENGTH + Bth.LENGTH)
                    + " octets)");
        }
        int expected = compute(packet, offset, icrcOffset);
        int found = read(packet, offset, icrcOffset);
        if (expected != found) {
            throw new DecodeException("ICRC", offset + icrcOffset,
                    String.format("packet carries 0x%08x, its invariant fields give 0x%08x", found, expected));
        }
    }
}
