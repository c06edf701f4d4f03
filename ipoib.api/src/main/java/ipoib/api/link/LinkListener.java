package ipoib.api.link;

import org.osgi.annotation.versioning.ConsumerType;
/**
 * A whiteboard service told about changes of every link, synchronously and in order, on the
 * link's control thread: the resolvers and the multicast manager use it to follow the fabric.
 * Do not block; exceptions are logged and ignored.
 */
@ConsumerType
@FunctionalInterface
public interface LinkListener {

    /** What changed. */
    enum Change {
        /** The link is UP (again): address, MTU and Q_Key may be new. */
        UP,
        /** The link went DOWN or back to JOINING: address handles and joins are void. */
        DOWN,
        /** LIDs changed (own LID change, SM change): path records must be refreshed, not flushed. */
        PATHS_STALE,
        /** Multicast joins are lost (client re-register, SM change, P_Key change): join again. */
        MULTICAST_RESET
    }

    void linkChanged(IpoibLink link, Change change);
}
