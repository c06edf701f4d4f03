package ipoib.codec.mad;

import ipoib.api.Gid;
import ipoib.api.Mgid;
import ipoib.api.sa.GroupTrap;
import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The InformInfo attribute (IBA 1.2.1 §13.4.8.3, attribute 0x0003): a subscription to traps,
 * sent to the SA with Set (Subscribe 1) and withdrawn with Subscribe 0. All 36 octets as on the
 * wire; the layout matches OpenSM's {@code ib_inform_info_t}.
 *
 * <pre>
 * 0-15: GID    16-17: LIDRangeBegin    18-19: LIDRangeEnd    20-21: reserved
 * 22: IsGeneric    23: Subscribe    24-25: Type    26-27: TrapNumber (generic) / DeviceID (vendor)
 * 28-31: QPN (24) | reserved (3) | RespTimeValue (5)
 * 32: reserved    33-35: ProducerType (generic) / VendorID (vendor)
 * </pre>
 *
 * <p>(The attribute ID is 0x0003; 0x0031 is ServiceRecord.) IsGeneric and Subscribe are whole
 * octets holding 0 or 1; any non-zero octet decodes as true.
 *
 * @param gid the GID of interest (for traps 64-67 the port or group), zero for any
 * @param lidRangeBegin 16 bits; 0xFFFF for every LID
 * @param lidRangeEnd 16 bits
 * @param generic IsGeneric
 * @param subscribe Subscribe
 * @param type 16 bits; 0xFFFF for every notice type
 * @param trapNumberOrDeviceId 16 bits; 0xFFFF for every trap
 * @param qpn 24 bits: the QP the reports are sent to
 * @param responseTimeValue 5 bits
 * @param producerTypeOrVendorId 24 bits; 0xFFFFFF for every producer
 */
public record InformInfo(Gid gid, int lidRangeBegin, int lidRangeEnd, boolean generic, boolean subscribe, int type,
                         int trapNumberOrDeviceId, int qpn, int responseTimeValue, int producerTypeOrVendorId) {

    /** Length of the attribute in octets. */
    public static final int LENGTH = 36;
    /** Attribute ID. */
    public static final int ATTRIBUTE_ID = MadAttribute.INFORM_INFO;
    /** LIDRangeBegin meaning every LID. */
    public static final int ALL_LIDS = 0xFFFF;
    /** Type meaning every notice type. */
    public static final int ALL_TYPES = 0xFFFF;
    /** ProducerType meaning every producer. */
    public static final int ALL_PRODUCERS = 0xFF_FFFF;

    /**
     * @throws IllegalArgumentException when a field is null or does not fit its width
     */
    public InformInfo {
        Fields.notNull("InformInfo GID", gid);
        Fields.bits("InformInfo LIDRangeBegin", lidRangeBegin, 16);
        Fields.bits("InformInfo LIDRangeEnd", lidRangeEnd, 16);
        Fields.bits("InformInfo Type", type, 16);
        Fields.bits("InformInfo TrapNumber", trapNumberOrDeviceId, 16);
        Fields.bits("InformInfo QPN", qpn, 24);
        Fields.bits("InformInfo RespTimeValue", responseTimeValue, 5);
        Fields.bits("InformInfo ProducerType", producerTypeOrVendorId, 24);
    }

    /**
     * A (un)subscription to a multicast group trap (66 created, 67 deleted): generic, any type and
     * producer, for one group ({@code mgid}) or every group ({@code mgid} null: GID zero, every LID).
     *
     * @param qpn the subscriber's QP that receives the reports (QP1 for an SA client)
     */
    public static InformInfo forGroupTrap(GroupTrap.Type trap, Mgid mgid, boolean subscribe, int qpn) {
        return new InformInfo(mgid == null ? Gid.ZERO : mgid.gid(), ALL_LIDS, 0, true, subscribe, ALL_TYPES,
                trap.trapNumber(), qpn, 0, ALL_PRODUCERS);
    }

    /**
     * Writes the 36 octets at {@code offset}, reserved bits zero.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "InformInfo");
        Fields.putGid(segment, offset, gid);
        Wire.put16(segment, offset + 16, lidRangeBegin);
        Wire.put16(segment, offset + 18, lidRangeEnd);
        Wire.put16(segment, offset + 20, 0);
        Wire.put8(segment, offset + 22, generic ? 1 : 0);
        Wire.put8(segment, offset + 23, subscribe ? 1 : 0);
        Wire.put16(segment, offset + 24, type);
        Wire.put16(segment, offset + 26, trapNumberOrDeviceId);
        Wire.put32(segment, offset + 28, qpn << 8 | responseTimeValue);
        Wire.put32(segment, offset + 32, producerTypeOrVendorId);
    }

    /**
     * Reads the 36 octets at {@code offset}; reserved bits are ignored.
     *
     * @throws DecodeException when fewer than 36 octets remain ("InformInfo")
     */
    public static InformInfo decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "InformInfo");
        int qpnResp = Wire.u32(segment, offset + 28);
        return new InformInfo(Fields.gid(segment, offset), Wire.u16(segment, offset + 16),
                Wire.u16(segment, offset + 18), Wire.u8(segment, offset + 22) != 0, Wire.u8(segment, offset + 23) != 0,
                Wire.u16(segment, offset + 24), Wire.u16(segment, offset + 26), qpnResp >>> 8, qpnResp & 0x1F,
                Wire.u24(segment, offset + 33));
    }
}
