package ipoib.api.resolve;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.Rate;

/**
 * The path information of a destination, what {@code SIOCGIPOIBPATH} returns (Intel high-level
 * design §3.2).
 */
public record PathInfo(Gid destinationGid, Gid sourceGid, Lid destinationLid, Lid sourceLid, int flowLabel,
                       PKey pkey, int serviceLevel, IbMtu mtu, Rate rate, int packetLifetime, int hopLimit,
                       int trafficClass) {
}
