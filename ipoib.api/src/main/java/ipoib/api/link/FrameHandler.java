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

    /**
     * Called on the receive thread after the frames of one poll of the link's completion queue
     * have been handed over (NAPI's end of a poll, where Linux flushes GRO): a handler that holds
     * frames back to pass them on together (receive coalescing) passes them on here, so that
     * nothing waits for the next poll. Called for every handler of the link, whether or not it got
     * a frame in that poll. Does nothing by default.
     *
     * @since 2.2
     */
    default void endOfBatch(IpoibLink link) {
    }
}
