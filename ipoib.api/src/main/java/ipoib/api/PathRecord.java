package ipoib.api;

/**
 * The parts of a subnet administration PathRecord (IBA 15.2.5.16) that a UD sender needs: where
 * to send (DGID, DLID) and how (SL, MTU, rate, flow label, hop limit, traffic class).
 *
 * @param destinationGid DGID
 * @param sourceGid SGID
 * @param destinationLid DLID
 * @param sourceLid SLID
 * @param flowLabel 20-bit flow label
 * @param pkey the partition of the path
 * @param serviceLevel SL, 0..15
 * @param mtu path MTU
 * @param rate static rate
 * @param packetLifetime 6-bit packet lifetime exponent
 * @param hopLimit 0..255 (0 or 1: the destination is on the local subnet)
 * @param trafficClass 0..255
 */
public record PathRecord(Gid destinationGid, Gid sourceGid, Lid destinationLid, Lid sourceLid,
                         int flowLabel, PKey pkey, int serviceLevel, IbMtu mtu, Rate rate,
                         int packetLifetime, int hopLimit, int trafficClass) {

    /**
     * @throws IllegalArgumentException when a field is null or out of its range
     */
    public PathRecord {
        Records.requireNonNull("PathRecord", "destinationGid", destinationGid, "sourceGid", sourceGid,
                "destinationLid", destinationLid, "sourceLid", sourceLid, "pkey", pkey, "mtu", mtu, "rate", rate);
        Records.checkCommon(flowLabel, serviceLevel, packetLifetime, hopLimit, trafficClass);
    }
}
