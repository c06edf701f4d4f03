package ipoib.mcast.internal;

import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;

/**
 * The link's multicast-attach role as the manager uses it: route a joined group (attach the queue
 * pair when the membership receives) and drop the route. The only class that calls the link's
 * {@code add/remove/hasMulticastGroup}, so that moving to a separate attach service touches this
 * file alone.
 */
final class MulticastAttach {
    private final IpoibLink link;

    MulticastAttach(IpoibLink link) {
        this.link = link;
    }

    /**
     * Routes a group the port joined; {@code receive} attaches the queue pair too.
     *
     * @throws RuntimeException when the link cannot use the group (it is going DOWN, or the attach failed)
     */
    void attach(McMemberRecord joined, boolean receive) {
        link.addMulticastGroup(joined, receive);
    }

    /** Drops the route of a group (and detaches the queue pair); quiet when the link is closing too. */
    void detach(Mgid group) {
        try {
            link.removeMulticastGroup(group);
        } catch (RuntimeException closing) {
            // The link is going away with its routes.
        }
    }

    boolean isAttached(Mgid group) {
        return link.hasMulticastGroup(group);
    }
}
