package ipoib.api.link;

import ipoib.api.Gid;
import ipoib.api.PathRecord;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A reference to one entry of a link's path cache: the PathRecord to a destination port and the
 * address handle the link built from it (Linux's {@code struct ipoib_path}). The link owns the
 * entry and its handle: it refreshes them when LIDs or the subnet manager change, and destroys a
 * replaced or released handle only after the send completions have passed its last use.
 *
 * <p>Obtained from {@link IpoibLink#acquirePath}; every reference is {@link #release() released}
 * exactly once. A reference stays usable for {@link IpoibLink#sendUnicast} until it is released
 * or the link goes DOWN (then sends on it are dropped as {@link TransmitResult#DROPPED_NO_ROUTE}).
 *
 * @since 2.0
 */
@ProviderType
public interface LinkPath {

    /** The destination port's GID. */
    Gid destination();

    /** The PathRecord the current address handle was built from (it may change on refresh). */
    PathRecord record();

    /** The service level the address handle uses. */
    int serviceLevel();

    /** Whether sends on this path can go out (not released, link still in the same UP period). */
    boolean valid();

    /**
     * Asks the subnet administrator again (e.g. unicast to the peer went unanswered while it
     * answers broadcast: its LID may have changed); sending continues on the current handle
     * until the answer replaces it. Does nothing when a query is running.
     */
    void refresh();

    /** Gives the reference back; the link reaps the entry when no reference is left. */
    void release();
}
