/**
 * The IPoIB link: one interface per (HCA, port, P_Key) that has joined the broadcast group
 * (RFC 4391 §5), sends frames with the 4-octet encapsulation header (§6), and hands received
 * frames to {@link ipoib.api.link.FrameHandler} whiteboard services by EtherType.
 */
@Export
@Version("2.2.0")
package ipoib.api.link;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
