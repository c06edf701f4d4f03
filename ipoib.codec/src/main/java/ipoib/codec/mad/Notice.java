package ipoib.codec.mad;

import ipoib.api.Gid;
import ipoib.api.Mgid;
import ipoib.api.sa.GroupTrap;
import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The Notice attribute (IBA 1.2.1 §13.4.8.2, attribute 0x0002) that the SM sends with Trap and
 * the SA forwards to subscribers with Report. All 80 octets as on the wire; the layout matches
 * OpenSM's {@code ib_mad_notice_attr_t}.
 *
 * <pre>
 * 0: IsGeneric (1) | Type (7)    1-3: ProducerType (generic) / VendorID (vendor)
 * 4-5: TrapNumber (generic) / DeviceID (vendor)    6-7: IssuerLID
 * 8-9: NoticeToggle (1) | NoticeCount (15)    10-63: DataDetails (54)    64-79: IssuerGID
 * </pre>
 *
 * <p>For the traps 64-67 that the SM issues (IBA §14.2.5.1; OpenSM's {@code ntc_64_67}) DataDetails
 * holds 6 reserved octets and then the GID concerned; for 66 (group created) and 67 (group
 * deleted) that is the MGID.
 *
 * @param generic IsGeneric
 * @param type 7 bits ({@link #TYPE_SUBNET_MANAGEMENT}, ...)
 * @param producerTypeOrVendorId 24 bits
 * @param trapNumberOrDeviceId 16 bits
 * @param issuerLid 16 bits
 * @param noticeToggle NoticeToggle
 * @param noticeCount 15 bits
 * @param dataDetails exactly 54 octets (copied in and out)
 * @param issuerGid IssuerGID
 */
public record Notice(boolean generic, int type, int producerTypeOrVendorId, int trapNumberOrDeviceId, int issuerLid,
                     boolean noticeToggle, int noticeCount, byte[] dataDetails, Gid issuerGid) {

    /** Length of the attribute in octets. */
    public static final int LENGTH = 80;
    /** Attribute ID. */
    public static final int ATTRIBUTE_ID = MadAttribute.NOTICE;
    /** Length of DataDetails. */
    public static final int DATA_DETAILS_LENGTH = 54;
    /** Where the GID of traps 64-67 lies in DataDetails. */
    public static final int TRAP_GID_OFFSET = 6;
    public static final int TYPE_FATAL = 0;
    public static final int TYPE_URGENT = 1;
    public static final int TYPE_SECURITY = 2;
    public static final int TYPE_SUBNET_MANAGEMENT = 3;
    public static final int TYPE_INFORMATIONAL = 4;
    /** ProducerType of a class manager (the SM/SA). */
    public static final int PRODUCER_CLASS_MANAGER = 4;

    /**
     * @throws IllegalArgumentException when a field is null, does not fit its width, or DataDetails
     *                                  is not 54 octets
     */
    public Notice {
        Fields.bits("Notice Type", type, 7);
        Fields.bits("Notice ProducerType", producerTypeOrVendorId, 24);
        Fields.bits("Notice TrapNumber", trapNumberOrDeviceId, 16);
        Fields.bits("Notice IssuerLID", issuerLid, 16);
        Fields.bits("Notice NoticeCount", noticeCount, 15);
        Fields.notNull("Notice DataDetails", dataDetails);
        if (dataDetails.length != DATA_DETAILS_LENGTH) {
            throw new IllegalArgumentException("Notice DataDetails has " + dataDetails.length + " octets, needs 54");
        }
        dataDetails = dataDetails.clone();
        Fields.notNull("Notice IssuerGID", issuerGid);
    }

    /**
     * The notice of a multicast group trap as OpenSM sends it: generic, type subnet management,
     * producer class manager, trap 66 or 67, the MGID at offset 6 of DataDetails.
     *
     * @param issuerLid the SM's LID
     * @param issuerGid the SM's port GID
     */
    public static Notice forGroupTrap(GroupTrap.Type trap, Mgid mgid, int issuerLid, Gid issuerGid) {
        byte[] details = new byte[DATA_DETAILS_LENGTH];
        byte[] gid = mgid.gid().toBytes();
        System.arraycopy(gid, 0, details, TRAP_GID_OFFSET, Gid.LENGTH);
        return new Notice(true, TYPE_SUBNET_MANAGEMENT, PRODUCER_CLASS_MANAGER, trap.trapNumber(), issuerLid, false, 0,
                details, issuerGid);
    }

    /** DataDetails (a copy). */
    @Override
    public byte[] dataDetails() {
        return dataDetails.clone();
    }

    /** The GID at offset 6 of DataDetails (traps 64-67). */
    public Gid trapGid() {
        return Gid.fromBytes(dataDetails, TRAP_GID_OFFSET);
    }

    /**
     * The group trap this notice reports: its MGID and, as the API defines the reporter GID, the
     * GID of DataDetails.
     *
     * @throws DecodeException naming the field and its offset from the start of the attribute:
     *                         "Notice IsGeneric" for a vendor notice, "Notice TrapNumber" for a
     *                         trap other than 66 and 67, "Notice DataDetails GID" when that GID is
     *                         not multicast
     */
    public GroupTrap toGroupTrap() throws DecodeException {
        if (!generic) {
            throw new DecodeException("Notice IsGeneric", 0, "a vendor notice is no group trap");
        }
        GroupTrap.Type trap;
        if (trapNumberOrDeviceId == GroupTrap.Type.CREATED.trapNumber()) {
            trap = GroupTrap.Type.CREATED;
        } else if (trapNumberOrDeviceId == GroupTrap.Type.DELETED.trapNumber()) {
            trap = GroupTrap.Type.DELETED;
        } else {
            throw new DecodeException("Notice TrapNumber", 4, "trap " + trapNumberOrDeviceId
                    + ", group traps are 66 (created) and 67 (deleted)");
        }
        Gid gid = trapGid();
        if (!gid.isMulticast()) {
            throw new DecodeException("Notice DataDetails GID", 10 + TRAP_GID_OFFSET, "GID " + gid
                    + " of a group trap is not a multicast GID");
        }
        return new GroupTrap(trap, new Mgid(gid), gid);
    }

    /**
     * Writes the 80 octets at {@code offset}.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "Notice");
        Wire.put8(segment, offset, (generic ? 0x80 : 0) | type);
        Wire.put24(segment, offset + 1, producerTypeOrVendorId);
        Wire.put16(segment, offset + 4, trapNumberOrDeviceId);
        Wire.put16(segment, offset + 6, issuerLid);
        Wire.put16(segment, offset + 8, (noticeToggle ? 0x8000 : 0) | noticeCount);
        MemorySegment.copy(MemorySegment.ofArray(dataDetails), 0, segment, offset + 10, DATA_DETAILS_LENGTH);
        Fields.putGid(segment, offset + 64, issuerGid);
    }

    /**
     * Reads the 80 octets at {@code offset}.
     *
     * @throws DecodeException when fewer than 80 octets remain ("Notice")
     */
    public static Notice decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "Notice");
        int b0 = Wire.u8(segment, offset);
        int toggleCount = Wire.u16(segment, offset + 8);
        byte[] details = segment.asSlice(offset + 10, DATA_DETAILS_LENGTH).toArray(ValueLayout.JAVA_BYTE);
        return new Notice((b0 & 0x80) != 0, b0 & 0x7F, Wire.u24(segment, offset + 1), Wire.u16(segment, offset + 4),
                Wire.u16(segment, offset + 6), (toggleCount & 0x8000) != 0, toggleCount & 0x7FFF, details,
                Fields.gid(segment, offset + 64));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Notice n && generic == n.generic && type == n.type
                && producerTypeOrVendorId == n.producerTypeOrVendorId && trapNumberOrDeviceId == n.trapNumberOrDeviceId
                && issuerLid == n.issuerLid && noticeToggle == n.noticeToggle && noticeCount == n.noticeCount
                && Arrays.equals(dataDetails, n.dataDetails) && issuerGid.equals(n.issuerGid);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Integer.hashCode(trapNumberOrDeviceId) + Arrays.hashCode(dataDetails)) + issuerGid.hashCode();
    }

    @Override
    public String toString() {
        return "Notice[generic=" + generic + ", type=" + type + ", producer/vendor=" + producerTypeOrVendorId
                + ", trap/device=" + trapNumberOrDeviceId + ", issuerLID=" + issuerLid + ", toggle=" + noticeToggle
                + ", count=" + noticeCount + ", details=" + HexFormat.of().formatHex(dataDetails) + ", issuerGID="
                + issuerGid + "]";
    }
}
