package ipoib.codec.pcap;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import ipoib.codec.iba.Grh;
import java.lang.foreign.MemorySegment;

/**
 * The 40-octet pseudo-header that precedes each frame of a {@link LinkType#IPOIB} capture, in
 * front of the 4-octet IPoIB encapsulation header of RFC 4391 §6. It takes one of two forms,
 * told apart by its first two octets (as Wireshark's IPoIB dissector does):
 *
 * <ul>
 * <li>A GRH (IBA §8.3): what a UD receive buffer holds in its first 40 octets for a packet that
 * came with one, e.g. every multicast packet. Its first octet carries IPVer 6, so the first two
 * octets are never both zero. Octets 4-7 do not hold the GRH's PayLen, NxtHdr and HopLmt but a
 * zero octet and the sender's 24-bit QPN, where Wireshark's IPoIB dissector reads "Source QPN"
 * ({@code ipoib.grh.sqpn}, octets 5-7) and illumos' {@code ipoib_pgrh_t} keeps it.</li>
 * <li>Twenty zero octets followed by the 20-octet destination link-layer address of RFC 4391 §9.1.1
 * (reserved octet, 24-bit QPN, 16-octet GID): the form for frames without a GRH, such as unicast
 * frames as sent.</li>
 * </ul>
 *
 * <p>The destination GID lies at octets 24-39 in both forms. Writing allocates nothing.
 */
public final class IpoibPseudoHeader {
    private IpoibPseudoHeader() {}

    /** Length of the pseudo-header in octets. */
    public static final int LENGTH = 40;
    /** Offset of the destination GID in both forms. */
    public static final int DESTINATION_GID_OFFSET = 24;
    /** Offset of the 20-octet destination address in the address form. */
    public static final int ADDRESS_OFFSET = 20;

    /** Offset of the sender's QPN in the GRH form (24 bits, after a zero octet at 4). */
    public static final int SOURCE_QPN_OFFSET = 5;

    /**
     * Writes the GRH form with octets 4-7 as they are in the GRH (PayLen, NxtHdr, HopLmt), which
     * Wireshark then shows as a wrong Source QPN.
     *
     * @deprecated use {@link #writeGrh(MemorySegment, long, Grh, int)} with the sender's QPN
     */
    @Deprecated
    public static void writeGrh(MemorySegment segment, long offset, Grh grh) {
        grh.encode(segment, offset);
    }

    /**
     * Writes the GRH form: the GRH, with the sender's QPN in octets 5-7 (octet 4 zero).
     *
     * @throws IllegalArgumentException when the QPN does not fit 24 bits
     * @since 1.1
     */
    public static void writeGrh(MemorySegment segment, long offset, Grh grh, int sourceQpn) {
        checkQpn(sourceQpn);
        grh.encode(segment, offset);
        putSourceQpn(segment, offset, sourceQpn);
    }

    /**
     * Puts the sender's QPN into a GRH-form pseudo-header written from a receive buffer's GRH:
     * octet 4 zero, octets 5-7 the QPN. Allocates nothing.
     *
     * @throws IllegalArgumentException when the QPN does not fit 24 bits
     * @since 1.1
     */
    public static void putSourceQpn(MemorySegment segment, long offset, int sourceQpn) {
        checkQpn(sourceQpn);
        Wire.put32(segment, offset + SOURCE_QPN_OFFSET - 1, sourceQpn);
    }

    /**
     * The sender's QPN of the GRH form.
     *
     * @throws DecodeException when fewer than 40 octets remain or the pseudo-header is the address form
     * @since 1.1
     */
    public static int sourceQpn(MemorySegment segment, long offset) throws DecodeException {
        if (!isGrh(segment, offset)) {
            throw new DecodeException("IPoIB pseudo-header form", offset,
                    "first two octets are zero: the address form, which names no source QPN");
        }
        return Wire.u24(segment, offset + SOURCE_QPN_OFFSET);
    }

    private static void checkQpn(int qpn) {
        if (qpn < 0 || qpn > 0xFF_FFFF) {
            throw new IllegalArgumentException("QPN " + qpn + " does not fit 24 bits");
        }
    }

    /**
     * Writes the address form: 20 zero octets, then a zero reserved octet, the QPN and the GID.
     *
     * @throws IllegalArgumentException when the QPN does not fit 24 bits
     * @throws IndexOutOfBoundsException when 40 octets do not fit at {@code offset}
     */
    public static void writeDestination(MemorySegment segment, long offset, int qpn, long gidPrefix,
                                        long gidInterfaceId) {
        if (qpn < 0 || qpn > 0xFF_FFFF) {
            throw new IllegalArgumentException("QPN " + qpn + " does not fit 24 bits");
        }
        Wire.check(segment, offset, LENGTH, "IPoIB pseudo-header");
        segment.asSlice(offset, ADDRESS_OFFSET).fill((byte) 0);
        Wire.put32(segment, offset + ADDRESS_OFFSET, qpn);
        Wire.put64(segment, offset + DESTINATION_GID_OFFSET, gidPrefix);
        Wire.put64(segment, offset + DESTINATION_GID_OFFSET + 8, gidInterfaceId);
    }

    /** Writes the address form for a destination GID. */
    public static void writeDestination(MemorySegment segment, long offset, int qpn, Gid gid) {
        writeDestination(segment, offset, qpn, gid.prefix(), gid.interfaceId());
    }

    /** What the pseudo-header of a frame holds, as far as its first octets tell. */
    public enum Form {
        /** Twenty zero octets, then the destination address. */
        ADDRESS,
        /** A GRH: IPVer 6 in the first octet. */
        GRH,
        /**
         * Neither: non-zero first octets without IPVer 6 (captures in the wild carry such junk,
         * e.g. tcpdump's tests/ipoib.pcap); only the frame after the pseudo-header is meaningful.
         */
        UNKNOWN
    }

    /**
     * The form of the pseudo-header at {@code offset}; junk is {@link Form#UNKNOWN}, never an
     * exception, so a reader reports such a frame and goes on.
     *
     * @throws DecodeException when fewer than 40 octets remain ("IPoIB pseudo-header")
     * @since 1.1
     */
    public static Form form(MemorySegment segment, long offset) throws DecodeException {
        if (!isGrh(segment, offset)) {
            return Form.ADDRESS;
        }
        return (Wire.u8(segment, offset) >>> 4) == Grh.IP_VERSION ? Form.GRH : Form.UNKNOWN;
    }

    /**
     * Whether the pseudo-header at {@code offset} is the GRH form.
     *
     * @throws DecodeException when fewer than 40 octets remain ("IPoIB pseudo-header")
     */
    public static boolean isGrh(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "IPoIB pseudo-header");
        return Wire.u16(segment, offset) != 0;
    }

    /**
     * The destination GID (octets 24-39 of either form).
     *
     * @throws DecodeException when fewer than 40 octets remain ("IPoIB pseudo-header")
     */
    public static Gid destinationGid(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "IPoIB pseudo-header");
        return new Gid(Wire.u64(segment, offset + DESTINATION_GID_OFFSET),
                Wire.u64(segment, offset + DESTINATION_GID_OFFSET + 8));
    }

    /**
     * The destination QPN of the address form.
     *
     * @throws DecodeException when fewer than 40 octets remain ("IPoIB pseudo-header") or the
     *                         pseudo-header is the GRH form, which names no QPN ("IPoIB
     *                         pseudo-header form")
     */
    public static int destinationQpn(MemorySegment segment, long offset) throws DecodeException {
        if (isGrh(segment, offset)) {
            throw new DecodeException("IPoIB pseudo-header form", offset,
                    "a GRH pseudo-header carries no destination QPN");
        }
        return Wire.u24(segment, offset + ADDRESS_OFFSET + 1);
    }

    /**
     * Reads the GRH form into {@code grh}.
     *
     * @throws DecodeException when fewer than 40 octets remain, the pseudo-header is the address
     *                         form ("IPoIB pseudo-header form"), or the GRH does not decode
     */
    public static Grh readGrh(MemorySegment segment, long offset, Grh grh) throws DecodeException {
        if (!isGrh(segment, offset)) {
            throw new DecodeException("IPoIB pseudo-header form", offset,
                    "first two octets are zero: the address form, not a GRH");
        }
        return grh.decode(segment, offset);
    }
}
