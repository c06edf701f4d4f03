package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.link.LinkPath;

/**
 * Where a resolved neighbour's frames go: a reference to the link's path to the peer's port, and
 * the peer's QPN. Immutable; a neighbour swaps its route as a whole. The engine releases the path
 * reference when the route is retired (the link reaps the address handle after its last send).
 *
 * @param path the link's path to the peer's GID (a reference the engine holds)
 * @param qpn the peer's QPN
 * @param linkAddress the peer's link-layer address
 */
public record Route(LinkPath path, Qpn qpn, LinkAddress linkAddress) {

    /** This route to another QPN of the same port (the peer's interface was reset): the same path. */
    Route withAddress(LinkAddress address) {
        return new Route(path, address.qpn(), address);
    }

    /** The PathRecord the path's address handle was built from. */
    public PathRecord record() {
        return path.record();
    }

    /** The SL of the path's address handle. */
    public int serviceLevel() {
        return path.serviceLevel();
    }
}
