package ipoib.codec.iba;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Datagram Extended Transport Header (IBA 1.2.1 §9.3; laid out in
 * draft-kashyap-ipv6-over-ib appendix B.4): 8 octets that follow the BTH of every unreliable
 * datagram.
 *
 * <pre>
 * octets 0-3: Q_Key          octet 4: reserved          octets 5-7: SrcQP
 * </pre>
 *
 * <p>A mutable, reusable view. Not thread-safe.
 */
public final class Deth {
    /** Length of the DETH in octets. */
    public static final int LENGTH = 8;

    private int queueKey;
    private int sourceQp;

    /** Q_Key, all 32 bits (compare unsigned). */
    public int queueKey() {
        return queueKey;
    }

    public Deth queueKey(int qkey) {
        this.queueKey = qkey;
        return this;
    }

    /** SrcQP, 24 bits. */
    public int sourceQp() {
        return sourceQp;
    }

    public Deth sourceQp(int qpn) {
        this.sourceQp = Fields.check("DETH SrcQP", qpn, 24);
        return this;
    }

    public Deth clear() {
        queueKey = sourceQp = 0;
        return this;
    }

    public Deth set(Deth other) {
        queueKey = other.queueKey;
        sourceQp = other.sourceQp;
        return this;
    }

    /**
     * Writes the 8 octets at {@code offset}, the reserved octet zero.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "DETH");
        Wire.put32(segment, offset, queueKey);
        Wire.put32(segment, offset + 4, sourceQp);
    }

    /**
     * Reads the 8 octets at {@code offset} into this view.
     *
     * @throws DecodeException when fewer than 8 octets remain ("DETH")
     */
    public Deth decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "DETH");
        queueKey = Wire.u32(segment, offset);
        sourceQp = Wire.u24(segment, offset + 5);
        return this;
    }

    @Override
    public String toString() {
        return String.format("DETH[Q_Key=0x%08x SrcQP=0x%06x]", queueKey, sourceQp);
    }
}
