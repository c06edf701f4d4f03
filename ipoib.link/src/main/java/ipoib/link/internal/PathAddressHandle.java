package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;

/**
 * A unicast address handle the link made from a path record. Within a subnet the vector carries
 * no GRH and so no destination GID; the handle keeps the path's GID so that a capture can name
 * the destination. The link passes the provider's handle to the queue pair.
 */
final class PathAddressHandle implements AddressHandle {
    final AddressHandle delegate;
    final Gid destinationGid;

    PathAddressHandle(AddressHandle delegate, Gid destinationGid) {
        this.delegate = delegate;
        this.destinationGid = destinationGid;
    }

    @Override
    public AddressVector vector() {
        return delegate.vector();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** The provider's handle behind a handle given to a link user. */
    static AddressHandle unwrap(AddressHandle handle) {
        return handle instanceof PathAddressHandle p ? p.delegate : handle;
    }

    /** The destination GID of a handle, or null when neither the vector nor the path names one. */
    static Gid destinationGid(AddressHandle handle) {
        if (handle instanceof PathAddressHandle p) {
            return p.destinationGid;
        }
        AddressVector v = handle.vector();
        return v == null ? null : v.destinationGid();
    }
}
