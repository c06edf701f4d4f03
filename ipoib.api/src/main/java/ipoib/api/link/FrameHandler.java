package ipoib.api.link;

import org.osgi.annotation.versioning.ConsumerType;
/**
 * A whiteboard service receiving the frames of one EtherType, registered with the service
 * property {@value #ETHERTYPE_PROPERTY} (an Integer, e.g. 0x0806 for ARP) and optionally
 * {@value #LINK_PROPERTY} (a link name) to receive from one link only.
 *
 * <p>Called on the link's receive thread: do not block, do not keep the frame. Exceptions are
 * caught, counted and logged by the link.
 */
@ConsumerType
@FunctionalInterface
public interface FrameHandler {

    /** Service property: the EtherType handled (Integer). */
    String ETHERTYPE_PROPERTY = "ipoib.ethertype";
    /** Service property: the link name handled; absent for every link. */
    String LINK_PROPERTY = "ipoib.link";

    void onFrame(IpoibLink link, ReceivedFrame frame);
}
