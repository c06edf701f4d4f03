package ipoib.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A whiteboard service told about every change of the interface addresses (the resolvers use
 * it: gratuitous ARP for a new IPv4 address, duplicate address detection for a new IPv6 one).
 * Called synchronously on the thread that made the change, outside any lock of the address
 * table: do not block; exceptions are logged and ignored.
 */
@ConsumerType
@FunctionalInterface
public interface AddressListener {

    /** What changed. */
    enum Change {
        /** A new address. */
        ADDED,
        /** An address went away. */
        REMOVED,
        /** The state of an address changed (e.g. TENTATIVE to PREFERRED after DAD). */
        STATE,
        /** The prefix length, origin or lifetime of an existing address changed. */
        UPDATED
    }

    void addressChanged(InterfaceAddress address, Change change);
}
