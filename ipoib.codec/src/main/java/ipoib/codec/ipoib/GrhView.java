package ipoib.codec.ipoib;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * A reusable, mutable view of one received GRH (IBA 8.3; layout in {@link Grh}). RFC 4391 §6
 * requires handling packets with and without a GRH: {@link #decode} fills the fields from a
 * GRH that is present, {@link #absent} records that the packet had none.
 *
 * <p>Decoding copies the fields into this object and keeps no reference to the segment, so the
 * receive buffer may be reposted at once. Neither method allocates; only {@link #sourceGid()}
 * and {@link #destinationGid()} create value objects. Not thread-safe: use one view per
 * receiving thread.
 */
public final class GrhView {
    private boolean present;
    private int trafficClass;
    private int flowLabel;
    private int payloadLength;
    private int nextHeader;
    private int hopLimit;
    private long sourcePrefix;
    private long sourceInterfaceId;
    private long destinationPrefix;
    private long destinationInterfaceId;

    /** A view that holds no GRH yet ({@link #isPresent()} is false). */
    public GrhView() {}

    /**
     * Decodes the GRH at {@code offset}.
     *
     * <p>The version must be 6 and NxtHdr 0x1B (IBA 8.3.1: a GRH in front of an IBA transport
     * header, the only kind a UD queue pair receives). On failure the view is left
     * {@link #absent()}.
     *
     * @return this view
     * @throws DecodeException if fewer than 40 octets remain, or for another version or NxtHdr
     */
    public GrhView decode(MemorySegment buf, long offset) throws DecodeException {
        absent();
        Wire.require(buf, offset, Grh.LENGTH, "GRH");
        int first = Wire.u32(buf, offset);
        int version = first >>> 28;
        if (version != Grh.IP_VERSION) {
            throw new DecodeException("GRH IP version", offset, "is " + version + ", a GRH carries 6");
        }
        int next = Wire.u8(buf, offset + Grh.NEXT_HEADER_OFFSET);
        if (next != Grh.NEXT_HEADER_IBA) {
            throw new DecodeException("GRH next header", offset + Grh.NEXT_HEADER_OFFSET,
                    String.format("is 0x%02x, expected 0x1b (IBA transport header)", next));
        }
        trafficClass = (first >>> 20) & 0xFF;
        flowLabel = first & 0xF_FFFF;
        payloadLength = Wire.u16(buf, offset + Grh.PAYLOAD_LENGTH_OFFSET);
        nextHeader = next;
        hopLimit = Wire.u8(buf, offset + Grh.HOP_LIMIT_OFFSET);
        sourcePrefix = Wire.u64(buf, offset + Grh.SGID_OFFSET);
        sourceInterfaceId = Wire.u64(buf, offset + Grh.SGID_OFFSET + 8);
        destinationPrefix = Wire.u64(buf, offset + Grh.DGID_OFFSET);
        destinationInterfaceId = Wire.u64(buf, offset + Grh.DGID_OFFSET + 8);
        present = true;
        return this;
    }

    /**
     * Records that the packet arrived without a GRH (the work completion said so); every field
     * reads as zero.
     *
     * @return this view
     */
    public GrhView absent() {
        present = false;
        trafficClass = 0;
        flowLabel = 0;
        payloadLength = 0;
        nextHeader = 0;
        hopLimit = 0;
        sourcePrefix = 0;
        sourceInterfaceId = 0;
        destinationPrefix = 0;
        destinationInterfaceId = 0;
        return this;
    }

    /** Whether the last packet carried a GRH. */
    public boolean isPresent() {
        return present;
    }

    /** TClass, 0..255. */
    public int trafficClass() {
        return trafficClass;
    }

    /** FlowLabel, 0..0xFFFFF. */
    public int flowLabel() {
        return flowLabel;
    }

    /** PayLen: octets from the BTH to the ICRC inclusive. */
    public int payloadLength() {
        return payloadLength;
    }

    /** NxtHdr; 0x1B whenever {@link #isPresent()}. */
    public int nextHeader() {
        return nextHeader;
    }

    /** HopLmt, 0..255. */
    public int hopLimit() {
        return hopLimit;
    }

    /** Upper 64 bits of the SGID (the sender's subnet prefix). */
    public long sourceGidPrefix() {
        return sourcePrefix;
    }

    /** Lower 64 bits of the SGID (the sender's port GUID). */
    public long sourceGidInterfaceId() {
        return sourceInterfaceId;
    }

    /** Upper 64 bits of the DGID. */
    public long destinationGidPrefix() {
        return destinationPrefix;
    }

    /** Lower 64 bits of the DGID. */
    public long destinationGidInterfaceId() {
        return destinationInterfaceId;
    }

    /** Whether the DGID is a multicast GID (first octet 0xFF): the packet was sent to a group. */
    public boolean isMulticastDestination() {
        return present && (destinationPrefix >>> 56) == 0xFF;
    }

    /** The SGID as a value object (allocates). */
    public Gid sourceGid() {
        return new Gid(sourcePrefix, sourceInterfaceId);
    }

    /** The DGID as a value object (allocates). */
    public Gid destinationGid() {
        return new Gid(destinationPrefix, destinationInterfaceId);
    }

    @Override
    public String toString() {
        if (!present) {
            return "GRH[absent]";
        }
        return String.format("GRH[tclass=%d flow=0x%05x paylen=%d hops=%d sgid=%s dgid=%s]", trafficClass, flowLabel,
                payloadLength, hopLimit, sourceGid(), destinationGid());
    }
}
