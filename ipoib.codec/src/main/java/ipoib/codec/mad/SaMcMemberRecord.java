package ipoib.codec.mad;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The MCMemberRecord attribute of subnet administration (IBA 1.2.1 §15.2.5.17, attribute 0x0038),
 * all 52 octets as on the wire; the layout matches OpenSM's {@code ib_member_rec_t} (without its 4
 * octets of padding) and Linux's {@code mcmember_rec_table}.
 *
 * <pre>
 * 0-15: MGID    16-31: PortGID    32-35: Q_Key    36-37: MLID
 * 38: MTUSelector (2) | MTU (6)    39: TClass    40-41: P_Key
 * 42: RateSelector (2) | Rate (6)    43: PacketLifeTimeSelector (2) | PacketLifeTime (6)
 * 44-47: SL (4) | FlowLabel (20) | HopLimit (8)    48: Scope (4) | JoinState (4)
 * 49: ProxyJoin (1) | reserved (7)    50-51: reserved
 * </pre>
 *
 * <p>In GetTable answers records are padded to 56 octets ({@link #TABLE_STRIDE}). JoinState is kept
 * as its 4 bits (FullMember 0x1, NonMember 0x2, SendOnlyNonMember 0x4, SendOnlyFullMember 0x8;
 * a Delete may carry several); {@link #toApi()} requires exactly one of the first three. The
 * {@code CM_} constants are the ComponentMask bits, numbered in field order (OpenSM
 * {@code IB_MCR_COMPMASK_*}).
 *
 * @param mgid MGID (zero in a create request that lets the SA choose)
 * @param portGid PortGID
 * @param qkey all 32 bits
 * @param mlid 16 bits
 * @param mtuSelector MTUSelector
 * @param mtu 6-bit MTU code
 * @param trafficClass 8 bits
 * @param pkey 16 bits as carried
 * @param rateSelector RateSelector
 * @param rate 6-bit rate code
 * @param packetLifeTimeSelector PacketLifeTimeSelector
 * @param packetLifeTime 6 bits
 * @param serviceLevel 4 bits
 * @param flowLabel 20 bits
 * @param hopLimit 8 bits
 * @param scope 4 bits
 * @param joinState 4 bits
 * @param proxyJoin ProxyJoin bit
 */
public record SaMcMemberRecord(Gid mgid, Gid portGid, int qkey, int mlid, Selector mtuSelector, int mtu,
                               int trafficClass, int pkey, Selector rateSelector, int rate,
                               Selector packetLifeTimeSelector, int packetLifeTime, int serviceLevel, int flowLabel,
                               int hopLimit, int scope, int joinState, boolean proxyJoin) {

    /** Length of the record in octets. */
    public static final int LENGTH = 52;
    /** Distance of records in a GetTable answer: 52 octets padded to whole 8-octet words. */
    public static final int TABLE_STRIDE = 56;
    /** Attribute ID. */
    public static final int ATTRIBUTE_ID = MadAttribute.MC_MEMBER_RECORD;

    public static final long CM_MGID = 1L;
    public static final long CM_PORT_GID = 1L << 1;
    public static final long CM_QKEY = 1L << 2;
    public static final long CM_MLID = 1L << 3;
    public static final long CM_MTU_SELECTOR = 1L << 4;
    public static final long CM_MTU = 1L << 5;
    public static final long CM_TCLASS = 1L << 6;
    public static final long CM_PKEY = 1L << 7;
    public static final long CM_RATE_SELECTOR = 1L << 8;
    public static final long CM_RATE = 1L << 9;
    public static final long CM_PACKET_LIFE_TIME_SELECTOR = 1L << 10;
    public static final long CM_PACKET_LIFE_TIME = 1L << 11;
    public static final long CM_SL = 1L << 12;
    public static final long CM_FLOW_LABEL = 1L << 13;
    public static final long CM_HOP_LIMIT = 1L << 14;
    public static final long CM_SCOPE = 1L << 15;
    public static final long CM_JOIN_STATE = 1L << 16;
    public static final long CM_PROXY_JOIN = 1L << 17;
    /** Components of a join of an existing group, or of a leave: MGID, PortGID, JoinState. */
    public static final long JOIN_COMPONENTS = CM_MGID | CM_PORT_GID | CM_JOIN_STATE;
    /**
     * Components of a join that creates a missing group (RFC 4391 §5; as Linux IPoIB sends them):
     * the join components, Q_Key, P_Key, MTU and rate with their selectors, TClass, SL, FlowLabel
     * and HopLimit.
     */
    public static final long CREATE_COMPONENTS = JOIN_COMPONENTS | CM_QKEY | CM_PKEY | CM_MTU_SELECTOR | CM_MTU
            | CM_RATE_SELECTOR | CM_RATE | CM_TCLASS | CM_SL | CM_FLOW_LABEL | CM_HOP_LIMIT;

    /**
     * @throws IllegalArgumentException when a field is null or does not fit its width
     */
    public SaMcMemberRecord {
        Fields.notNull("MCMemberRecord MGID", mgid);
        Fields.notNull("MCMemberRecord PortGID", portGid);
        Fields.bits("MCMemberRecord MLID", mlid, 16);
        Fields.notNull("MCMemberRecord MTUSelector", mtuSelector);
        Fields.bits("MCMemberRecord MTU", mtu, 6);
        Fields.bits("MCMemberRecord TClass", trafficClass, 8);
        Fields.bits("MCMemberRecord P_Key", pkey, 16);
        Fields.notNull("MCMemberRecord RateSelector", rateSelector);
        Fields.bits("MCMemberRecord Rate", rate, 6);
        Fields.notNull("MCMemberRecord PacketLifeTimeSelector", packetLifeTimeSelector);
        Fields.bits("MCMemberRecord PacketLifeTime", packetLifeTime, 6);
        Fields.bits("MCMemberRecord SL", serviceLevel, 4);
        Fields.bits("MCMemberRecord FlowLabel", flowLabel, 20);
        Fields.bits("MCMemberRecord HopLimit", hopLimit, 8);
        Fields.bits("MCMemberRecord Scope", scope, 4);
        Fields.bits("MCMemberRecord JoinState", joinState, 4);
    }

    /**
     * The record of a join of an existing group, or of a leave, to be sent with
     * {@link #JOIN_COMPONENTS}: MGID, PortGID and JoinState, the rest zero.
     */
    public static SaMcMemberRecord join(Mgid mgid, Gid portGid, JoinState state) {
        return new SaMcMemberRecord(mgid.gid(), portGid, 0, 0, Selector.GREATER_THAN, 0, 0, 0, Selector.GREATER_THAN,
                0, Selector.GREATER_THAN, 0, 0, 0, 0, 0, state.bit(), false);
    }

    /**
     * The record of an API member record: selectors {@link Selector#EXACTLY}, Scope from the MGID.
     * Serves both as an SA answer and, with {@link #CREATE_COMPONENTS}, as a create request.
     */
    public static SaMcMemberRecord fromApi(McMemberRecord record) {
        return new SaMcMemberRecord(record.mgid().gid(), record.portGid(), record.qkey().value(),
                record.mlid().value(), Selector.EXACTLY, record.mtu().code(), record.trafficClass(),
                record.pkey().value(), Selector.EXACTLY, record.rate().code(), Selector.EXACTLY,
                record.packetLifetime(), record.serviceLevel(), record.flowLabel(), record.hopLimit(), record.scope(),
                record.joinState().bit(), record.proxyJoin());
    }

    /**
     * The API member record. Scope is taken from the MGID, as the API does.
     *
     * @throws DecodeException naming the field ("MCMemberRecord MGID", "... MTU", "... P_Key",
     *                         "... Rate", "... JoinState") and its offset from the start of the
     *                         record when its value has no API equivalent: a non-multicast MGID,
     *                         an MTU code outside 1..5, a zero P_Key base, an unknown rate code, a
     *                         JoinState other than exactly one of FullMember, NonMember,
     *                         SendOnlyNonMember
     */
    public McMemberRecord toApi() throws DecodeException {
        Mgid apiMgid;
        IbMtu apiMtu;
        PKey apiPkey;
        Rate apiRate;
        JoinState apiState;
        try {
            apiMgid = new Mgid(mgid);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("MCMemberRecord MGID", 0, e.getMessage());
        }
        try {
            apiMtu = IbMtu.fromCode(mtu);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("MCMemberRecord MTU", 38, e.getMessage());
        }
        try {
            apiPkey = PKey.of(pkey);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("MCMemberRecord P_Key", 40, e.getMessage());
        }
        try {
            apiRate = Rate.fromCode(rate);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("MCMemberRecord Rate", 42, e.getMessage());
        }
        try {
            apiState = JoinState.fromBit(joinState);
        } catch (IllegalArgumentException e) {
            throw new DecodeException("MCMemberRecord JoinState", 48, e.getMessage());
        }
        return new McMemberRecord(apiMgid, portGid, QKey.of(qkey), Lid.of(mlid), apiMtu, trafficClass, apiPkey, apiRate,
                packetLifeTime, serviceLevel, flowLabel, hopLimit, apiState, proxyJoin);
    }

    /**
     * Writes the 52 octets at {@code offset}, reserved bits zero (not the 4 octets of table
     * padding).
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "MCMemberRecord");
        Fields.putGid(segment, offset, mgid);
        Fields.putGid(segment, offset + 16, portGid);
        Wire.put32(segment, offset + 32, qkey);
        Wire.put16(segment, offset + 36, mlid);
        Wire.put8(segment, offset + 38, mtuSelector.code() << 6 | mtu);
        Wire.put8(segment, offset + 39, trafficClass);
        Wire.put16(segment, offset + 40, pkey);
        Wire.put8(segment, offset + 42, rateSelector.code() << 6 | rate);
        Wire.put8(segment, offset + 43, packetLifeTimeSelector.code() << 6 | packetLifeTime);
        Wire.put32(segment, offset + 44, serviceLevel << 28 | flowLabel << 8 | hopLimit);
        Wire.put8(segment, offset + 48, scope << 4 | joinState);
        Wire.put8(segment, offset + 49, proxyJoin ? 0x80 : 0);
        Wire.put16(segment, offset + 50, 0);
    }

    /**
     * Reads the 52 octets at {@code offset}; reserved bits are ignored.
     *
     * @throws DecodeException when fewer than 52 octets remain ("MCMemberRecord")
     */
    public static SaMcMemberRecord decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "MCMemberRecord");
        int mtuByte = Wire.u8(segment, offset + 38);
        int rateByte = Wire.u8(segment, offset + 42);
        int lifeByte = Wire.u8(segment, offset + 43);
        int slFlowHop = Wire.u32(segment, offset + 44);
        int scopeState = Wire.u8(segment, offset + 48);
        return new SaMcMemberRecord(Fields.gid(segment, offset), Fields.gid(segment, offset + 16),
                Wire.u32(segment, offset + 32), Wire.u16(segment, offset + 36), Selector.fromCode(mtuByte >>> 6),
                mtuByte & 0x3F, Wire.u8(segment, offset + 39), Wire.u16(segment, offset + 40),
                Selector.fromCode(rateByte >>> 6), rateByte & 0x3F, Selector.fromCode(lifeByte >>> 6), lifeByte & 0x3F,
                slFlowHop >>> 28, slFlowHop >>> 8 & 0xF_FFFF, slFlowHop & 0xFF, scopeState >>> 4, scopeState & 0xF,
                (Wire.u8(segment, offset + 49) & 0x80) != 0);
    }
}
