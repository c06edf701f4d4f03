/**
 * The IPoIB multicast mapping of RFC 4391 §4: IPv4 and IPv6 multicast groups to IB MGIDs, the
 * broadcast-GID of a link, and back.
 *
 * <p>Contract: pure functions on value objects ({@link ipoib.api.Mgid}, {@link ipoib.api.PKey},
 * {@link java.net.Inet4Address}, {@link java.net.Inet6Address} or their raw bits); no buffers,
 * no state. Their inputs come from the program, not from the wire, so anything that cannot be
 * mapped (a unicast address, a scope beyond 4 bits, an MGID that is not an IPoIB MGID where one
 * is required) is an {@link java.lang.IllegalArgumentException} that says what was expected.
 */
@Export
@Version("1.0.1")
package ipoib.codec.mcast;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
