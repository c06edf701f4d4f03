/**
 * Neighbour resolution (ARP for IPv4, RFC 4391 §9.2; Neighbor Discovery for IPv6, §9.3) with the
 * path-record state machine of the Intel high-level design (§2.1.4), and the path-information
 * query that stands in for its {@code SIOCGIPOIBPATH} (§3.2).
 *
 * <p>1.3: {@link ipoib.api.resolve.NextHopKind}, the one decision of how a packet leaves on a
 * link (broadcast group, multicast group or resolved neighbour), shared by every sender.
 */
@Export
@Version("1.4.0")
package ipoib.api.resolve;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
