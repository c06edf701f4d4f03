package ipoib.codec.iba;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Local Route Header (IBA 1.2.1 §7.7; laid out in draft-kashyap-ipv6-over-ib appendix B.1 and
 * draft-pelissier-ipoib-encaparp §3): 8 octets that carry a packet through one subnet.
 *
 * <pre>
 * octet 0: VL (4) | LVer (4)          octet 1: SL (4) | reserved (2) | LNH (2)
 * octets 2-3: DLID                    octets 4-5: reserved (5) | PktLen (11)
 * octets 6-7: SLID
 * </pre>
 *
 * <p>PktLen counts 4-octet words from the first octet of the LRH through the last octet of the
 * ICRC; the 2-octet VCRC is not counted (IBA §7.7.8). A mutable, reusable view: {@link #decode}
 * fills it from a buffer and {@link #encode} writes it; neither allocates. Reserved bits are written
 * as zero and ignored on receive. Not thread-safe.
 */
public final class Lrh {
    /** Length of the LRH in octets. */
    public static final int LENGTH = 8;
    /** LNH: raw packet, no IBA transport (IBA §7.7.5). */
    public static final int LNH_RAW = 0b00;
    /** LNH: raw IPv6 (non-IBA transport). */
    public static final int LNH_IP_NON_IBA = 0b01;
    /** LNH: IBA local packet, a BTH follows the LRH. */
    public static final int LNH_IBA_LOCAL = 0b10;
    /** LNH: IBA global packet, a GRH follows the LRH. */
    public static final int LNH_IBA_GLOBAL = 0b11;
    /** The only link version IBA 1.x defines. */
    public static final int LINK_VERSION = 0;
    /** Largest PktLen the 11-bit field holds (in 4-octet words). */
    public static final int MAX_PACKET_LENGTH_WORDS = 0x7FF;

    private int virtualLane;
    private int linkVersion;
    private int serviceLevel;
    private int linkNextHeader;
    private int destinationLid;
    private int packetLengthWords;
    private int sourceLid;

    /** VL, 0..15 (15 is the management lane). */
    public int virtualLane() {
        return virtualLane;
    }

    public Lrh virtualLane(int vl) {
        this.virtualLane = Fields.check("LRH VL", vl, 4);
        return this;
    }

    /** LVer, 0..15; IBA 1.x packets carry 0. */
    public int linkVersion() {
        return linkVersion;
    }

    public Lrh linkVersion(int lver) {
        this.linkVersion = Fields.check("LRH LVer", lver, 4);
        return this;
    }

    /** SL, 0..15. */
    public int serviceLevel() {
        return serviceLevel;
    }

    public Lrh serviceLevel(int sl) {
        this.serviceLevel = Fields.check("LRH SL", sl, 4);
        return this;
    }

    /** LNH, one of the {@code LNH_} constants. */
    public int linkNextHeader() {
        return linkNextHeader;
    }

    public Lrh linkNextHeader(int lnh) {
        this.linkNextHeader = Fields.check("LRH LNH", lnh, 2);
        return this;
    }

    /** DLID, 16 bits. */
    public int destinationLid() {
        return destinationLid;
    }

    public Lrh destinationLid(int dlid) {
        this.destinationLid = Fields.check("LRH DLID", dlid, 16);
        return this;
    }

    /** PktLen in 4-octet words, LRH through ICRC. */
    public int packetLengthWords() {
        return packetLengthWords;
    }

    public Lrh packetLengthWords(int words) {
        this.packetLengthWords = Fields.check("LRH PktLen", words, 11);
        return this;
    }

    /** SLID, 16 bits. */
    public int sourceLid() {
        return sourceLid;
    }

    public Lrh sourceLid(int slid) {
        this.sourceLid = Fields.check("LRH SLID", slid, 16);
        return this;
    }

    /** Whether LNH announces a GRH. */
    public boolean isGlobal() {
        return linkNextHeader == LNH_IBA_GLOBAL;
    }

    /** Sets every field to zero. */
    public Lrh clear() {
        virtualLane = linkVersion = serviceLevel = linkNextHeader = destinationLid = packetLengthWords = sourceLid = 0;
        return this;
    }

    /** Copies every field of {@code other}. */
    public Lrh set(Lrh other) {
        virtualLane = other.virtualLane;
        linkVersion = other.linkVersion;
        serviceLevel = other.serviceLevel;
        linkNextHeader = other.linkNextHeader;
        destinationLid = other.destinationLid;
        packetLengthWords = other.packetLengthWords;
        sourceLid = other.sourceLid;
        return this;
    }

    /**
     * Writes the 8 octets at {@code offset}, reserved bits zero.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "LRH");
        Wire.put8(segment, offset, virtualLane << 4 | linkVersion);
        Wire.put8(segment, offset + 1, serviceLevel << 4 | linkNextHeader);
        Wire.put16(segment, offset + 2, destinationLid);
        Wire.put16(segment, offset + 4, packetLengthWords);
        Wire.put16(segment, offset + 6, sourceLid);
    }

    /**
     * Reads the 8 octets at {@code offset} into this view.
     *
     * @throws DecodeException when fewer than 8 octets remain ("LRH") or LVer is not 0 ("LRH LVer")
     */
    public Lrh decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "LRH");
        int b0 = Wire.u8(segment, offset);
        if ((b0 & 0xF) != LINK_VERSION) {
            throw new DecodeException("LRH LVer", offset, "link version " + (b0 & 0xF) + ", only 0 is defined");
        }
        int b1 = Wire.u8(segment, offset + 1);
        virtualLane = b0 >>> 4;
        linkVersion = b0 & 0xF;
        serviceLevel = b1 >>> 4;
        linkNextHeader = b1 & 0x3;
        destinationLid = Wire.u16(segment, offset + 2);
        packetLengthWords = Wire.u16(segment, offset + 4) & MAX_PACKET_LENGTH_WORDS;
        sourceLid = Wire.u16(segment, offset + 6);
        return this;
    }

    @Override
    public String toString() {
        return String.format("LRH[VL=%d LVer=%d SL=%d LNH=%d DLID=0x%04x PktLen=%d SLID=0x%04x]", virtualLane,
                linkVersion, serviceLevel, linkNextHeader, destinationLid, packetLengthWords, sourceLid);
    }
}
