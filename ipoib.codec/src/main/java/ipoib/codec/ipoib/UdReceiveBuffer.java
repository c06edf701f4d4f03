package ipoib.codec.ipoib;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import ipoib.codec.iba.Grh;
import java.lang.foreign.MemorySegment;

/**
 * The framing of an IPoIB UD receive buffer: every receive starts with a 40-octet GRH area
 * (the IBA verbs' Post Receive Request for UD: the adapter writes the GRH there when the packet
 * has one and leaves the area undefined otherwise; RFC 4391 §6 requires handling both), then the
 * 4-octet encapsulation header (§6), then the IP or ARP datagram.
 *
 * <pre>
 *  offset 0   GRH area (40 octets, valid only when the work completion says so)
 *  offset 40  encapsulation header (4 octets)
 *  offset 44  payload
 * </pre>
 *
 * <p>{@code byteLength} is the length the work completion reports; it counts the GRH area
 * whether or not a GRH was present. A present GRH is decoded into a caller-owned
 * {@link ipoib.codec.iba.Grh} view by {@link #grh}. No method allocates.
 */
public final class UdReceiveBuffer {
    private UdReceiveBuffer() {}

    /** Length of the GRH area at the front of the buffer. */
    public static final int GRH_AREA_LENGTH = Grh.LENGTH;
    /** Offset of the encapsulation header from the start of the buffer. */
    public static final int ENCAPSULATION_OFFSET = GRH_AREA_LENGTH;
    /** Offset of the IP or ARP datagram from the start of the buffer. */
    public static final int PAYLOAD_OFFSET = ENCAPSULATION_OFFSET + EncapsulationHeader.LENGTH;

    /**
     * Decodes the GRH area into {@code grh} when the work completion says the packet had a GRH.
     *
     * <p>A present GRH must have IPVer 6 and NxtHdr 0x1B (IBA 8.3.1: a GRH in front of an IBA
     * transport header, the only kind a UD queue pair receives). When {@code grhPresent} is
     * false the area is not read at all (the adapter leaves it undefined) and the method returns
     * {@code null}: callers tell "no GRH" by the null return. Whenever the method does not return
     * a decoded GRH (no GRH, or a DecodeException) {@code grh} is left {@linkplain Grh#clear()
     * cleared}, so a reused view never shows a previous packet's fields. Keeps no reference to
     * the segment; allocates nothing.
     *
     * @param buf        the receive buffers
     * @param offset     start of the receive buffer (the GRH area)
     * @param grhPresent whether the work completion flags a GRH
     * @param grh        the view to fill
     * @return {@code grh} holding the decoded GRH, or {@code null} when the packet had none
     * @throws DecodeException "GRH" when fewer than 40 octets remain at {@code offset},
     *     "GRH IPVer" for another IP version (at {@code offset}), "GRH NxtHdr" for another next
     *     header (at {@code offset + 6})
     */
    public static Grh grh(MemorySegment buf, long offset, boolean grhPresent, Grh grh) throws DecodeException {
        grh.clear();
        if (!grhPresent) {
            return null;
        }
        grh.decode(buf, offset);
        if (grh.nextHeader() != Grh.NEXT_HEADER_IBA) {
            int next = grh.nextHeader();
            grh.clear();
            throw new DecodeException("GRH NxtHdr", offset + 6,
                    String.format("is 0x%02x, expected 0x1b (IBA transport header)", next));
        }
        return grh;
    }

    /**
     * The EtherType of a received packet.
     *
     * @param offset start of the receive buffer (the GRH area)
     * @param byteLength the length the work completion reports
     * @throws DecodeException if the completion is too short to hold the GRH area and the
     *     encapsulation header, or the segment does not hold {@code byteLength} octets
     */
    public static int etherType(MemorySegment buf, long offset, long byteLength) throws DecodeException {
        payloadLength(buf, offset, byteLength);
        return EncapsulationHeader.etherType(buf, offset + ENCAPSULATION_OFFSET);
    }

    /**
     * The length of the datagram that starts at {@code offset + }{@link #PAYLOAD_OFFSET}.
     *
     * @throws DecodeException if {@code byteLength} is less than 44 or the segment does not hold
     *     {@code byteLength} octets at {@code offset}
     */
    public static long payloadLength(MemorySegment buf, long offset, long byteLength) throws DecodeException {
        if (byteLength < PAYLOAD_OFFSET) {
            throw new DecodeException("UD receive length", offset, "is " + byteLength
                    + " octets, at least 44 (GRH area and encapsulation header) are needed");
        }
        Wire.require(buf, offset, byteLength, "UD receive buffer");
        return byteLength - PAYLOAD_OFFSET;
    }
}
