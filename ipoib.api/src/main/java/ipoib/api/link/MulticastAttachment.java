package ipoib.api.link;

import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The multicast-attach role of a link, for the multicast manager only: it makes groups the port
 * has joined usable for sending (an address handle) and receiving (the queue pair attached).
 * Every link registers this service next to its {@link IpoibLink} service, with the same service
 * properties (among them {@value IpoibLink#NAME_PROPERTY}).
 *
 * @since 2.0
 */
@ProviderType
public interface MulticastAttachment {

    /** The link this role belongs to. */
    IpoibLink link();

    /**
     * Makes a group the port has joined usable on this link: an address handle for sending and,
     * when {@code receive} is true, the queue pair attached to it. Adding a group again (another
     * join state, a new MLID) re-attaches or detaches as needed, never attaches twice.
     *
     * @throws IllegalStateException when the link is not UP
     */
    void addMulticastGroup(McMemberRecord joined, boolean receive);

    /** Detaches the queue pair from a group and forgets its address handle. */
    void removeMulticastGroup(Mgid group);

    /** Whether the link can send to a group now (it was added and the link is UP). */
    boolean hasMulticastGroup(Mgid group);
}
