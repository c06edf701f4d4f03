package ipoib.api.resolve;

import ipoib.api.LinkAddress;
import ipoib.api.Lid;
import java.net.InetAddress;
import java.time.Duration;

/**
 * A snapshot of one neighbour entry.
 *
 * @param link the link name
 * @param address the IP address
 * @param linkAddress the peer's link-layer address, null while INCOMPLETE
 * @param lid the DLID of the path, null until the path is known
 * @param serviceLevel the SL used for unicast to the peer, -1 until its path is known
 * @param state the entry's state
 * @param age time since the entry was last confirmed
 * @param queuedFrames frames waiting for resolution
 * @param permanent whether the entry was added statically (a peer's QPN may change after a
 *                  reset: a static entry then needs updating by hand)
 */
public record NeighbourEntry(String link, InetAddress address, LinkAddress linkAddress, Lid lid, int serviceLevel,
                             NeighbourState state, Duration age, int queuedFrames, boolean permanent) {
}
