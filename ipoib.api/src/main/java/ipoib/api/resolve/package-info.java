/**
 * Neighbour resolution (ARP for IPv4, RFC 4391 §9.2; Neighbor Discovery for IPv6, §9.3) with the
 * path-record state machine of the Intel high-level design (§2.1.4), and the path-information
 * query that stands in for its {@code SIOCGIPOIBPATH} (§3.2).
 */
@Export
@Version("1.2.0")
package ipoib.api.resolve;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
