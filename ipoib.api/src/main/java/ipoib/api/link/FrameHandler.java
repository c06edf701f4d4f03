package ipoib.api.link;

import org.osgi.annotation.versioning.ConsumerType;
/**
 * A whiteboard service receiving the frames of one EtherType, registered with the service
 * property {@value #ETHERTYPE_PROPERTY} (an Integer, e.g. 0x0806 for ARP) and optionally
 * {@value #LINK_PROPERTY} (a link name) to receive from one link only.
 *
 * <p>A handler that also carries {@value #BRIDGE_PROPERTY} is the link's bridge to a network
 * device: it owns the frames of its EtherType on the links it receives from, which the link hands
 * to it and to no handler without that property (the device's kernel, not this stack, is the host
 * there).
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
    /**
     * Service property: the name of the network device the link is bridged to (String). The
     * handler owns its EtherType's frames on its links (see the class comment).
     *
     * @since 2.3
     */
    String BRIDGE_PROPERTY = "ipoib.bridge";
    /**
     * Service property of a bridge's handler: the network namespace of its device (String),
     * absent for the appliance's own namespace.
     *
     * @since 2.3
     */
    String BRIDGE_NETNS_PROPERTY = "ipoib.bridge.netns";

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
