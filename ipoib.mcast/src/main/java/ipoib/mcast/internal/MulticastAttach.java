package ipoib.mcast.internal;

import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.link.MulticastAttachment;

/**
 * The link's multicast-attach role ({@link MulticastAttachment}) as the manager uses it: route a
 * joined group (attach the queue pair when the membership receives) and drop the route. The only
 * class that calls the role, so that a change of it touches this file alone.
 */
final class MulticastAttach {
    private final MulticastAttachment role;

    MulticastAttach(MulticastAttachment role) {
        this.role = role;
    }

    /**
     * Routes a group the port joined; {@code receive} attaches the queue pair too.
     *
     * @throws RuntimeException when the link cannot use the group (it is going DOWN, or the attach failed)
     */
    void attach(McMemberRecord joined, boolean receive) {
        role.addMulticastGroup(joined, receive);
    }

    /** Drops the route of a group (and detaches the queue pair); quiet when the link is closing too. */
    void detach(Mgid group) {
        try {
            role.removeMulticastGroup(group);
        } catch (RuntimeException closing) {
            // The link is going away with its routes.
        }
    }

    boolean isAttached(Mgid group) {
        return role.hasMulticastGroup(group);
    }
}
