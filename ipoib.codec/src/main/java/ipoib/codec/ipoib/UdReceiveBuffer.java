package ipoib.codec.ipoib;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
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
 * whether or not a GRH was present. No method allocates.
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
     * Fills {@code view} from the GRH area, or marks it absent when the completion says the
     * packet had no GRH (then the area is not read at all).
     *
     * @param grhPresent whether the work completion flags a GRH
     * @return {@code view}
     * @throws DecodeException if a present GRH does not decode, see {@link GrhView#decode}
     */
    public static GrhView grh(MemorySegment buf, long offset, boolean grhPresent, GrhView view)
            throws DecodeException {
        return grhPresent ? view.decode(buf, offset) : view.absent();
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
