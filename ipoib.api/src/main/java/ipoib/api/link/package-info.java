/**
 * The IPoIB link: one interface per (HCA, port, P_Key) that has joined the broadcast group
 * (RFC 4391 §5), sends frames with the 4-octet encapsulation header (§6), and hands received
 * frames to {@link ipoib.api.link.FrameHandler} whiteboard services by EtherType.
 *
 * <p>2.3: {@link ipoib.api.link.FrameHandler#BRIDGE_PROPERTY} and
 * {@link ipoib.api.link.FrameHandler#BRIDGE_NETNS_PROPERTY}: a bridge to a network device owns
 * its EtherTypes' frames on its link.
 */
@Export
@Version("2.3.0")
package ipoib.api.link;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
