package ipoib.codec.mad;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.Rate;
import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The PathRecord attribute of subnet administration (IBA 1.2.1 §15.2.5.16, attribute 0x0035), all
 * 64 octets as on the wire; the layout matches OpenSM's {@code ib_path_rec_t} and Linux's
 * {@code path_rec_table}.
 *
 * <pre>
 * 0-7: ServiceID    8-23: DGID    24-39: SGID    40-41: DLID    42-43: SLID
 * 44-47: RawTraffic (1) | reserved (3) | FlowLabel (20) | HopLimit (8)
 * 48: TClass    49: Reversible (1) | NumbPath (7)    50-51: P_Key    52-53: QoSClass (12) | SL (4)
 * 54: MTUSelector (2) | MTU (6)    55: RateSelector (2) | Rate (6)
 * 56: PacketLifeTimeSelector (2) | PacketLifeTime (6)    57: Preference    58-63: reserved
 * </pre>
 *
 * <p>Values are kept as carried, so query templates with zero or unusual fields round-trip;
 * {@link #toApi()} checks them when converting to the API's {@link PathRecord}. The {@code CM_}
 * constants are the ComponentMask bits, numbered in field order (OpenSM
 * {@code IB_PR_COMPMASK_*}, Linux {@code IB_SA_PATH_REC_*}); bit 7 is the reserved field.
 *
 * @param serviceId all 64 bits
 * @param destinationGid DGID
 * @param sourceGid SGID
 * @param destinationLid 16 bits
 * @param sourceLid 16 bits
 * @param rawTraffic RawTraffic bit
 * @param flowLabel 20 bits
 * @param hopLimit 8 bits
 * @param trafficClass 8 bits
 * @param reversible Reversible bit
 * @param numberOfPaths NumbPath, 7 bits
 * @param pkey 16 bits as carried
 * @param qosClass 12 bits
 * @param serviceLevel 4 bits
 * @param mtuSelector MTUSelector
 * @param mtu 6-bit MTU code ({@link IbMtu#code()})
 * @param rateSelector RateSelector
 * @param rate 6-bit rate code ({@link Rate#code()})
 * @param packetLifeTimeSelector PacketLifeTimeSelector
 * @param packetLifeTime 6 bits
 * @param preference 8 bits
 */
public record SaPathRecord(long serviceId, Gid destinationGid, Gid sourceGid, int destinationLid, int sourceLid,
                           boolean rawTraffic, int flowLabel, int hopLimit, int trafficClass, boolean reversible,
                           int numberOfPaths, int pkey, int qosClass, int serviceLevel, Selector mtuSelector, int mtu,
                           Selector rateSelector, int rate, Selector packetLifeTimeSelector, int packetLifeTime,
                           int preference) {

    /** Length of the record in octets. */
    public static final int LENGTH = 64;
    /** Attribute ID. */
    public static final int ATTRIBUTE_ID = MadAttribute.PATH_RECORD;

    /** ServiceID: component bits 0 and 1 (the two 32-bit components it took over from IBA 1.1), set together. */
    public static final long CM_SERVICE_ID = 0b11L;
    public static final long CM_DGID = 1L << 2;
    public static final long CM_SGID = 1L << 3;
    public static final long CM_DLID = 1L << 4;
    public static final long CM_SLID = 1L << 5;
    public static final long CM_RAW_TRAFFIC = 1L << 6;
    public static final long CM_FLOW_LABEL = 1L << 8;
    public static final long CM_HOP_LIMIT = 1L << 9;
    public static final long CM_TCLASS = 1L << 10;
    public static final long CM_REVERSIBLE = 1L << 11;
    public static final long CM_NUMB_PATH = 1L << 12;
    public static final long CM_PKEY = 1L << 13;
    public static final long CM_QOS_CLASS = 1L << 14;
    public static final long CM_SL = 1L << 15;
    public static final long CM_MTU_SELECTOR = 1L << 16;
    public static final long CM_MTU = 1L << 17;
    public static final long CM_RATE_SELECTOR = 1L << 18;
    public static final long CM_RATE = 1L << 19;
    public static final long CM_PACKET_LIFE_TIME_SELECTOR = 1L << 20;
    public static final long CM_PACKET_LIFE_TIME = 1L << 21;
    public static final long CM_PREFERENCE = 1L << 22;
    /** The components of {@link #query}: DGID, SGID, P_Key and NumbPath (as Linux IPoIB asks). */
    public static final long QUERY_COMPONENTS = CM_DGID | CM_SGID | CM_PKEY | CM_NUMB_PATH;

    /**
     * @throws IllegalArgumentException when a field is null or does not fit its width
     */
    public SaPathRecord {
        Fields.notNull("PathRecord DGID", destinationGid);
        Fields.notNull("PathRecord SGID", sourceGid);
        Fields.bits("PathRecord DLID", destinationLid, 16);
        Fields.bits("PathRecord SLID", sourceLid, 16);
        Fields.bits("PathRecord FlowLabel", flowLabel, 20);
        Fields.bits("PathRecord HopLimit", hopLimit, 8);
        Fields.bits("PathRecord TClass", trafficClass, 8);
        Fields.bits("PathRecord NumbPath", numberOfPaths, 7);
        Fields.bits("PathRecord P_Key", pkey, 16);
        Fields.bits("PathRecord QoSClass", qosClass, 12);
        Fields.bits("PathRecord SL", serviceLevel, 4);
        Fields.notNull("PathRecord MTUSelector", mtuSelector);
        Fields.bits("PathRecord MTU", mtu, 6);
        Fields.notNull("PathRecord RateSelector", rateSelector);
        Fields.bits("PathRecord Rate", rate, 6);
        Fields.notNull("PathRecord PacketLifeTimeSelector", packetLifeTimeSelector);
        Fields.bits("PathRecord PacketLifeTime", packetLifeTime, 6);
        Fields.bits("PathRecord Preference", preference, 8);
    }

    /**
     * The template of a PathRecord Get from {@code source} to {@code destination} in a partition,
     * to be sent with {@link #QUERY_COMPONENTS}: reversible, one path, every other field zero.
     */
    public static SaPathRecord query(Gid source, Gid destination, int pkey) {
        return new SaPathRecord(0, destination, source, 0, 0, false, 0, 0, 0, true, 1, pkey, 0, 0,
                Selector.GREATER_THAN, 0, Selector.GREATER_THAN, 0, Selector.GREATER_THAN, 0, 0);
    }

    /**
     * The record of an SA answer for an API path: selectors {@link Selector#EXACTLY}, reversible,
     * one path, ServiceID, QoSClass and Preference zero.
     */
    public static SaPathRecord fromApi(PathRecord path) {
        return new SaPathRecord(0, path.destinationGid(), path.sourceGid(), path.destinationLid().value(),
                path.sourceLid().value(), false, path.flowLabel(), path.hopLimit(), path.trafficClass(), true, 1,
                path.pkey().value(), 0, path.serviceLevel(), Selector.EXACTLY, path.mtu().code(), Selector.EXACTLY,
                path.rate().code(), Selector.EXACTLY, path.packetLifetime(), 0);
    }

    /**
     * The API path of this record.
     *
     * @throws DecodeException naming "PathRecord P_Key", "PathRecord MTU" or "PathRecord Rate" and
     *                         the field's offset from the start of the record when its value has
     *                         no API equivalent (a zero P_Key base, an MTU code outside 1..5, an
     *                         unknown rate code)
     */
    public PathRecord toApi() throws DecodeException {
        PKey apiPkey;
        IbMtu apiMtu;
        Rate apiRate;
        try {
            apiPkey = PKey.of(pkey);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("PathRecord P_Key", 50, e.getMessage());
        }
        try {
            apiMtu = IbMtu.fromCode(mtu);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("PathRecord MTU", 54, e.getMessage());
        }
        try {
            apiRate = Rate.fromCode(rate);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("PathRecord Rate", 55, e.getMessage());
        }
        return new PathRecord(destinationGid, sourceGid, Lid.of(destinationLid), Lid.of(sourceLid), flowLabel, apiPkey,
                serviceLevel, apiMtu, apiRate, packetLifeTime, hopLimit, trafficClass);
    }

    /**
     * Writes the 64 octets at {@code offset}, reserved bits zero.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "PathRecord");
        Wire.put64(segment, offset, serviceId);
        Fields.putGid(segment, offset + 8, destinationGid);
        Fields.putGid(segment, offset + 24, sourceGid);
        Wire.put16(segment, offset + 40, destinationLid);
        Wire.put16(segment, offset + 42, sourceLid);
        Wire.put32(segment, offset + 44, (rawTraffic ? 0x8000_0000 : 0) | flowLabel << 8 | hopLimit);
        Wire.put8(segment, offset + 48, trafficClass);
        Wire.put8(segment, offset + 49, (reversible ? 0x80 : 0) | numberOfPaths);
        Wire.put16(segment, offset + 50, pkey);
        Wire.put16(segment, offset + 52, qosClass << 4 | serviceLevel);
        Wire.put8(segment, offset + 54, mtuSelector.code() << 6 | mtu);
        Wire.put8(segment, offset + 55, rateSelector.code() << 6 | rate);
        Wire.put8(segment, offset + 56, packetLifeTimeSelector.code() << 6 | packetLifeTime);
        Wire.put8(segment, offset + 57, preference);
        Wire.put32(segment, offset + 58, 0);
        Wire.put16(segment, offset + 62, 0);
    }

    /**
     * Reads the 64 octets at {@code offset}; reserved bits are ignored.
     *
     * @throws DecodeException when fewer than 64 octets remain ("PathRecord")
     */
    public static SaPathRecord decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "PathRecord");
        int hopFlowRaw = Wire.u32(segment, offset + 44);
        int numPath = Wire.u8(segment, offset + 49);
        int qosSl = Wire.u16(segment, offset + 52);
        int mtuByte = Wire.u8(segment, offset + 54);
        int rateByte = Wire.u8(segment, offset + 55);
        int lifeByte = Wire.u8(segment, offset + 56);
        return new SaPathRecord(Wire.u64(segment, offset), Fields.gid(segment, offset + 8),
                Fields.gid(segment, offset + 24), Wire.u16(segment, offset + 40), Wire.u16(segment, offset + 42),
                hopFlowRaw < 0, hopFlowRaw >>> 8 & 0xF_FFFF, hopFlowRaw & 0xFF, Wire.u8(segment, offset + 48),
                (numPath & 0x80) != 0, numPath & 0x7F, Wire.u16(segment, offset + 50), qosSl >>> 4, qosSl & 0xF,
                Selector.fromCode(mtuByte >>> 6), mtuByte & 0x3F, Selector.fromCode(rateByte >>> 6), rateByte & 0x3F,
                Selector.fromCode(lifeByte >>> 6), lifeByte & 0x3F, Wire.u8(segment, offset + 57));
    }
}
