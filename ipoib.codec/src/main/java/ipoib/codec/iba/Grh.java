package ipoib.codec.iba;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Global Route Header (IBA 1.2.1 §8.3; laid out in draft-kashyap-ipv6-over-ib appendix B.2):
 * 40 octets shaped like an IPv6 header that carry a packet between subnets and to multicast
 * groups.
 *
 * <pre>
 * octets 0-3:  IPVer (4) = 6 | TClass (8) | FlowLabel (20)
 * octets 4-7:  PayLen (16) | NxtHdr (8) = 0x1B | HopLmt (8)
 * octets 8-23: SGID        octets 24-39: DGID
 * </pre>
 *
 * <p>PayLen counts the octets after the GRH through the ICRC (BTH, extended headers, payload, pad
 * and ICRC; not the VCRC). NxtHdr 0x1B announces an IBA transport header (a BTH). The same 40
 * octets head every UD receive buffer (the "GRH area" of IBA chapter 11, Post Receive Request), which is why the IPoIB
 * capture pseudo-header of {@link ipoib.codec.pcap.IpoibPseudoHeader} can be one.
 *
 * <p>A mutable, reusable view; the GIDs are held as two {@code long} halves so that decoding does
 * not allocate ({@link #sourceGid()} and {@link #destinationGid()} build {@link Gid} values on
 * demand). Not thread-safe. Callers that only write a GRH (a loopback fabric filling the GRH area
 * of a receive buffer) can use the static, allocation-free
 * {@link #write(MemorySegment, long, int, int, int, int, long, long, long, long)} instead of an
 * instance. {@link ipoib.codec.ipoib.UdReceiveBuffer#grh} decodes the GRH area of a UD receive
 * buffer into this view.
 */
public final class Grh {
    /** Length of the GRH in octets. */
    public static final int LENGTH = 40;
    /** IPVer of every GRH. */
    public static final int IP_VERSION = 6;
    /** NxtHdr announcing an IBA transport header (BTH). */
    public static final int NEXT_HEADER_IBA = 0x1B;

    private int trafficClass;
    private int flowLabel;
    private int payloadLength;
    private int nextHeader = NEXT_HEADER_IBA;
    private int hopLimit;
    private long sourceGidPrefix;
    private long sourceGidInterfaceId;
    private long destinationGidPrefix;
    private long destinationGidInterfaceId;

    /** IPVer: always 6 (a decoded GRH with another version is refused). */
    public int ipVersion() {
        return IP_VERSION;
    }

    /** TClass, 8 bits. */
    public int trafficClass() {
        return trafficClass;
    }

    public Grh trafficClass(int tclass) {
        this.trafficClass = Fields.check("GRH TClass", tclass, 8);
        return this;
    }

    /** FlowLabel, 20 bits. */
    public int flowLabel() {
        return flowLabel;
    }

    public Grh flowLabel(int label) {
        this.flowLabel = Fields.check("GRH FlowLabel", label, 20);
        return this;
    }

    /** PayLen in octets, from after the GRH through the ICRC. */
    public int payloadLength() {
        return payloadLength;
    }

    public Grh payloadLength(int paylen) {
        this.payloadLength = Fields.check("GRH PayLen", paylen, 16);
        return this;
    }

    /** NxtHdr, 0x1B for IBA transport. */
    public int nextHeader() {
        return nextHeader;
    }

    public Grh nextHeader(int nxthdr) {
        this.nextHeader = Fields.check("GRH NxtHdr", nxthdr, 8);
        return this;
    }

    /** HopLmt, 8 bits. */
    public int hopLimit() {
        return hopLimit;
    }

    public Grh hopLimit(int hops) {
        this.hopLimit = Fields.check("GRH HopLmt", hops, 8);
        return this;
    }

    public long sourceGidPrefix() {
        return sourceGidPrefix;
    }

    public long sourceGidInterfaceId() {
        return sourceGidInterfaceId;
    }

    public long destinationGidPrefix() {
        return destinationGidPrefix;
    }

    public long destinationGidInterfaceId() {
        return destinationGidInterfaceId;
    }

    /** SGID from its two halves (no allocation). */
    public Grh sourceGid(long prefix, long interfaceId) {
        this.sourceGidPrefix = prefix;
        this.sourceGidInterfaceId = interfaceId;
        return this;
    }

    /** DGID from its two halves (no allocation). */
    public Grh destinationGid(long prefix, long interfaceId) {
        this.destinationGidPrefix = prefix;
        this.destinationGidInterfaceId = interfaceId;
        return this;
    }

    /**
     * SGID from a value object.
     *
     * @throws IllegalArgumentException if {@code gid} is null
     */
    public Grh sourceGid(Gid gid) {
        return sourceGid(nonNull("GRH SGID", gid).prefix(), gid.interfaceId());
    }

    /**
     * DGID from a value object.
     *
     * @throws IllegalArgumentException if {@code gid} is null
     */
    public Grh destinationGid(Gid gid) {
        return destinationGid(nonNull("GRH DGID", gid).prefix(), gid.interfaceId());
    }

    private static Gid nonNull(String field, Gid gid) {
        if (gid == null) {
            throw new IllegalArgumentException(field + " is null");
        }
        return gid;
    }

    /** SGID as a new {@link Gid}. */
    public Gid sourceGid() {
        return new Gid(sourceGidPrefix, sourceGidInterfaceId);
    }

    /** DGID as a new {@link Gid}. */
    public Gid destinationGid() {
        return new Gid(destinationGidPrefix, destinationGidInterfaceId);
    }

    /** Whether the DGID is a multicast GID (first octet 0xFF). */
    public boolean isMulticast() {
        return destinationGidPrefix >>> 56 == 0xFF;
    }

    /** Sets every field to zero and NxtHdr to 0x1B. */
    public Grh clear() {
        trafficClass = flowLabel = payloadLength = hopLimit = 0;
        nextHeader = NEXT_HEADER_IBA;
        sourceGidPrefix = sourceGidInterfaceId = destinationGidPrefix = destinationGidInterfaceId = 0;
        return this;
    }

    /** Copies every field of {@code other}. */
    public Grh set(Grh other) {
        trafficClass = other.trafficClass;
        flowLabel = other.flowLabel;
        payloadLength = other.payloadLength;
        nextHeader = other.nextHeader;
        hopLimit = other.hopLimit;
        sourceGidPrefix = other.sourceGidPrefix;
        sourceGidInterfaceId = other.sourceGidInterfaceId;
        destinationGidPrefix = other.destinationGidPrefix;
        destinationGidInterfaceId = other.destinationGidInterfaceId;
        return this;
    }

    /**
     * Writes the 40 octets at {@code offset}, IPVer 6.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "GRH");
        put(segment, offset, trafficClass, flowLabel, payloadLength, nextHeader, hopLimit, sourceGidPrefix,
                sourceGidInterfaceId, destinationGidPrefix, destinationGidInterfaceId);
    }

    /**
     * Writes a GRH with IPVer 6 and NxtHdr 0x1B without an instance; allocates nothing. The values
     * are checked like the setters check them, and nothing is written unless all of them fit and
     * the 40 octets fit in {@code segment} at {@code offset}.
     *
     * @param trafficClass    TClass, 0..255
     * @param flowLabel       FlowLabel, 0..0xFFFFF
     * @param payloadLength   PayLen, 0..0xFFFF: the octets after the GRH through the ICRC
     * @param hopLimit        HopLmt, 0..255
     * @param sgidPrefix      upper 64 bits of the SGID
     * @param sgidInterfaceId lower 64 bits of the SGID
     * @param dgidPrefix      upper 64 bits of the DGID
     * @param dgidInterfaceId lower 64 bits of the DGID
     * @return {@link #LENGTH}
     * @throws IllegalArgumentException  if a value does not fit its field
     * @throws IndexOutOfBoundsException if 40 octets do not fit in {@code segment} at {@code offset}
     */
    public static int write(MemorySegment segment, long offset, int trafficClass, int flowLabel, int payloadLength,
            int hopLimit, long sgidPrefix, long sgidInterfaceId, long dgidPrefix, long dgidInterfaceId) {
        Fields.check("GRH TClass", trafficClass, 8);
        Fields.check("GRH FlowLabel", flowLabel, 20);
        Fields.check("GRH PayLen", payloadLength, 16);
        Fields.check("GRH HopLmt", hopLimit, 8);
        Wire.check(segment, offset, LENGTH, "GRH");
        put(segment, offset, trafficClass, flowLabel, payloadLength, NEXT_HEADER_IBA, hopLimit, sgidPrefix,
                sgidInterfaceId, dgidPrefix, dgidInterfaceId);
        return LENGTH;
    }

    private static void put(MemorySegment segment, long offset, int trafficClass, int flowLabel, int payloadLength,
            int nextHeader, int hopLimit, long sgidPrefix, long sgidInterfaceId, long dgidPrefix,
            long dgidInterfaceId) {
        Wire.put32(segment, offset, IP_VERSION << 28 | trafficClass << 20 | flowLabel);
        Wire.put16(segment, offset + 4, payloadLength);
        Wire.put8(segment, offset + 6, nextHeader);
        Wire.put8(segment, offset + 7, hopLimit);
        Wire.put64(segment, offset + 8, sgidPrefix);
        Wire.put64(segment, offset + 16, sgidInterfaceId);
        Wire.put64(segment, offset + 24, dgidPrefix);
        Wire.put64(segment, offset + 32, dgidInterfaceId);
    }

    /**
     * Reads the 40 octets at {@code offset} into this view. NxtHdr is not checked here (the
     * packet decoder and {@link ipoib.codec.ipoib.UdReceiveBuffer#grh} require 0x1B). On failure
     * the view is left as it was.
     *
     * @throws DecodeException when fewer than 40 octets remain ("GRH") or IPVer is not 6
     *                         ("GRH IPVer")
     */
    public Grh decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "GRH");
        int word0 = Wire.u32(segment, offset);
        if (word0 >>> 28 != IP_VERSION) {
            throw new DecodeException("GRH IPVer", offset, "IP version " + (word0 >>> 28) + ", a GRH has 6");
        }
        trafficClass = word0 >>> 20 & 0xFF;
        flowLabel = word0 & 0xF_FFFF;
        payloadLength = Wire.u16(segment, offset + 4);
        nextHeader = Wire.u8(segment, offset + 6);
        hopLimit = Wire.u8(segment, offset + 7);
        sourceGidPrefix = Wire.u64(segment, offset + 8);
        sourceGidInterfaceId = Wire.u64(segment, offset + 16);
        destinationGidPrefix = Wire.u64(segment, offset + 24);
        destinationGidInterfaceId = Wire.u64(segment, offset + 32);
        return this;
    }

    @Override
    public String toString() {
        return String.format("GRH[TClass=%d FlowLabel=0x%05x PayLen=%d NxtHdr=0x%02x HopLmt=%d SGID=%s DGID=%s]",
                trafficClass, flowLabel, payloadLength, nextHeader, hopLimit, sourceGid(), destinationGid());
    }
}
