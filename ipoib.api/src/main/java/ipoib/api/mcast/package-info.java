/**
 * IP multicast over IPoIB (RFC 4391 §10, §11): listener joins, the egress decision, group
 * existence from traps, and router (NonMember) mode.
 */
@Export
@Version("1.1.0")
package ipoib.api.mcast;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
