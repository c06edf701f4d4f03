package ipoib.api.verbs;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.Rate;

/**
 * Where and how to send a datagram (IBA 11.2.2.1 address vector).
 *
 * @param destinationLid the unicast LID or the group's MLID
 * @param serviceLevel 0..15
 * @param rate the static rate, or null for the port's rate
 * @param global whether to send a GRH (required for multicast, RFC 4391 §5)
 * @param destinationGid the DGID when {@code global}
 * @param flowLabel 20 bits, when {@code global}
 * @param hopLimit 0..255, when {@code global}
 * @param trafficClass 0..255, when {@code global}
 * @param sourceGidIndex index in the port's GID table, when {@code global}
 */
public record AddressVector(Lid destinationLid, int serviceLevel, Rate rate, boolean global, Gid destinationGid,
                            int flowLabel, int hopLimit, int trafficClass, int sourceGidIndex) {

    /**
     * @throws IllegalArgumentException for missing or out-of-range fields
     */
    public AddressVector {
        if (destinationLid == null) {
            throw new IllegalArgumentException("address vector needs a destination LID");
        }
        if (global && destinationGid == null) {
            throw new IllegalArgumentException("a global address vector needs a destination GID");
        }
        if (serviceLevel < 0 || serviceLevel > 15) {
            throw new IllegalArgumentException("invalid service level '" + serviceLevel + "': allowed 0..15");
        }
        if (flowLabel < 0 || flowLabel > 0xFFFFF) {
            throw new IllegalArgumentException("invalid flow label '" + flowLabel + "': allowed 0..0xFFFFF");
        }
        if (hopLimit < 0 || hopLimit > 255 || trafficClass < 0 || trafficClass > 255) {
            throw new IllegalArgumentException("invalid hop limit '" + hopLimit + "' or traffic class '" + trafficClass
                    + "': allowed 0..255");
        }
        if (sourceGidIndex < 0 || sourceGidIndex > 255) {
            throw new IllegalArgumentException("invalid source GID index '" + sourceGidIndex + "': allowed 0..255");
        }
    }

    /** A local (no GRH) vector to a unicast LID. */
    public static AddressVector local(Lid lid, int serviceLevel) {
        return new AddressVector(lid, serviceLevel, null, false, null, 0, 0, 0, 0);
    }
}
