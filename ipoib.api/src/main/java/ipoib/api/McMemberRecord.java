package ipoib.api;

/**
 * A multicast member record (IBA 15.2.5.17): a group's parameters as the subnet administrator
 * returns them on a join, together with the member port and its join state.
 *
 * <p>RFC 4391 §5 and §9.1.2 take the link's Q_Key, MTU, SL, rate, flow label, hop limit and
 * traffic class from the broadcast group's record.
 *
 * @param mgid the group
 * @param portGid the member port
 * @param qkey the group's Q_Key
 * @param mlid the group's multicast LID
 * @param mtu the group's MTU
 * @param trafficClass 0..255
 * @param pkey the group's partition
 * @param rate the group's rate
 * @param packetLifetime 6-bit exponent
 * @param serviceLevel 0..15
 * @param flowLabel 20 bits
 * @param hopLimit 0..255
 * @param joinState the member's join state
 * @param proxyJoin whether the join was made on behalf of another port
 */
public record McMemberRecord(Mgid mgid, Gid portGid, QKey qkey, Lid mlid, IbMtu mtu, int trafficClass,
                             PKey pkey, Rate rate, int packetLifetime, int serviceLevel, int flowLabel,
                             int hopLimit, JoinState joinState, boolean proxyJoin) {

    /**
     * @throws IllegalArgumentException when a field is null or out of its range
     */
    public McMemberRecord {
        Records.requireNonNull("McMemberRecord", "mgid", mgid, "portGid", portGid, "qkey", qkey, "mlid", mlid,
                "mtu", mtu, "pkey", pkey, "rate", rate, "joinState", joinState);
        Records.checkCommon(flowLabel, serviceLevel, packetLifetime, hopLimit, trafficClass);
    }

    /** The scope nibble of the group (taken from the MGID, as the SA does). */
    public int scope() {
        return mgid.scope();
    }

    /** This record for another member port and join state (the group parameters stay). */
    public McMemberRecord forMember(Gid memberPort, JoinState state) {
        return new McMemberRecord(mgid, memberPort, qkey, mlid, mtu, trafficClass, pkey, rate, packetLifetime,
                serviceLevel, flowLabel, hopLimit, state, proxyJoin);
    }
}
