package ipoib.codec.ipoib;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Mgid;
import ipoib.api.Qpn;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The 20-octet IPoIB link-layer address of RFC 4391 §9.1.1 (Figure 5), as it appears in ARP
 * (§9.2) and in the ND link-layer address options (§9.3):
 *
 * <pre>
 *  octet 0      flags (reserved in RFC 4391; capability flags, see {@link CapabilityFlags})
 *  octet 1..3   QPN
 *  octet 4..19  GID (port GID, or the MGID with QPN 0xFFFFFF for a group)
 * </pre>
 *
 * <p>{@link #read} and {@link #write(MemorySegment, long, LinkAddress)} convert to and from
 * {@link LinkAddress}; the accessors and the primitive {@code write} serve the data path without
 * allocating. The flags octet is written as the caller gives it (zero unless told otherwise)
 * and read raw; it does not take part in {@link #samePeer}.
 */
public final class LinkAddressCodec {
    private LinkAddressCodec() {}

    /** Length of the address in octets. */
    public static final int LENGTH = LinkAddress.LENGTH;

    private static final String FIELD = "IPoIB link-layer address";

    /**
     * Writes an address from its parts.
     *
     * @param flags the flags octet, 0..0xFF
     * @param qpn 0..0xFFFFFF
     * @return {@link #LENGTH}
     * @throws IllegalArgumentException if {@code flags} or {@code qpn} do not fit
     * @throws IndexOutOfBoundsException if 20 octets do not fit in {@code buf} at {@code offset}
     */
    public static int write(MemorySegment buf, long offset, int flags, int qpn, long gidPrefix, long gidInterfaceId) {
        if (flags < 0 || flags > 0xFF) {
            throw new IllegalArgumentException(String.format("link-address flags 0x%x do not fit one octet", flags));
        }
        if (qpn < 0 || qpn > Qpn.MAX) {
            throw new IllegalArgumentException(String.format("QPN 0x%x does not fit 24 bits", qpn));
        }
        if (offset < 0 || offset > buf.byteSize() - LENGTH) {
            throw new IndexOutOfBoundsException("link-layer address needs 20 octets at offset " + offset
                    + " of a " + buf.byteSize() + "-octet buffer");
        }
        Wire.put32(buf, offset, flags << 24 | qpn);
        Wire.put64(buf, offset + 4, gidPrefix);
        Wire.put64(buf, offset + 12, gidInterfaceId);
        return LENGTH;
    }

    /**
     * Writes {@code address}, flags octet included.
     *
     * @return {@link #LENGTH}
     */
    public static int write(MemorySegment buf, long offset, LinkAddress address) {
        if (address == null) {
            throw new IllegalArgumentException("link-layer address must not be null");
        }
        return write(buf, offset, address.flags(), address.qpn().value(), address.gid().prefix(),
                address.gid().interfaceId());
    }

    /**
     * Writes the multicast address of a group (§9.1.1 and §4): flags zero, QPN 0xFFFFFF, the MGID.
     *
     * @return {@link #LENGTH}
     */
    public static int writeMulticast(MemorySegment buf, long offset, Mgid group) {
        if (group == null) {
            throw new IllegalArgumentException("MGID must not be null");
        }
        return write(buf, offset, 0, Qpn.MAX, group.gid().prefix(), group.gid().interfaceId());
    }

    /**
     * The address at {@code offset} as a value object (allocates).
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static LinkAddress read(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        int word = Wire.u32(buf, offset);
        return new LinkAddress(word >>> 24, new Qpn(word & Qpn.MAX),
                new Gid(Wire.u64(buf, offset + 4), Wire.u64(buf, offset + 12)));
    }

    /**
     * The address at {@code offset} with the flags octet taken as zero: the canonical identity
     * of the peer, for caches and comparisons (allocates).
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static LinkAddress readPeer(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return new LinkAddress(0, new Qpn(Wire.u24(buf, offset + 1)),
                new Gid(Wire.u64(buf, offset + 4), Wire.u64(buf, offset + 12)));
    }

    /**
     * The raw flags octet.
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static int flags(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return Wire.u8(buf, offset);
    }

    /**
     * The 24-bit QPN.
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static int qpn(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return Wire.u24(buf, offset + 1);
    }

    /**
     * The upper 64 bits of the GID (subnet prefix, or the MGID's first half).
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static long gidPrefix(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return Wire.u64(buf, offset + 4);
    }

    /**
     * The lower 64 bits of the GID (port GUID, or the MGID's second half).
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static long gidInterfaceId(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return Wire.u64(buf, offset + 12);
    }

    /**
     * Whether the address names a group: QPN 0xFFFFFF and a multicast GID (§9.1.1).
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static boolean isMulticast(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return Wire.u24(buf, offset + 1) == Qpn.MAX && Wire.u8(buf, offset + 4) == 0xFF;
    }

    /**
     * Whether the address at {@code offset} names the same peer as {@code peer}: same QPN and
     * GID. The flags octet is ignored, as capability flags do not change who the peer is.
     *
     * @throws DecodeException if fewer than 20 octets remain
     */
    public static boolean samePeer(MemorySegment buf, long offset, LinkAddress peer) throws DecodeException {
        Wire.require(buf, offset, LENGTH, FIELD);
        return Wire.u24(buf, offset + 1) == peer.qpn().value()
                && Wire.u64(buf, offset + 4) == peer.gid().prefix()
                && Wire.u64(buf, offset + 12) == peer.gid().interfaceId();
    }

    /**
     * Whether two encoded addresses name the same peer (QPN and GID; flags ignored).
     *
     * @throws DecodeException if fewer than 20 octets remain at either offset
     */
    public static boolean samePeer(MemorySegment a, long aOffset, MemorySegment b, long bOffset)
            throws DecodeException {
        Wire.require(a, aOffset, LENGTH, FIELD);
        Wire.require(b, bOffset, LENGTH, FIELD);
        return Wire.u24(a, aOffset + 1) == Wire.u24(b, bOffset + 1)
                && Wire.u64(a, aOffset + 4) == Wire.u64(b, bOffset + 4)
                && Wire.u64(a, aOffset + 12) == Wire.u64(b, bOffset + 12);
    }
}
