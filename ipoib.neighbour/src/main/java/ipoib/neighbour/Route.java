package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.verbs.AddressHandle;

/**
 * Where a resolved neighbour's frames go: an address handle built from the PathRecord, and the
 * peer's QPN. Immutable; a neighbour swaps its route as a whole.
 *
 * @param handle the address handle (owned by the engine)
 * @param qpn the peer's QPN
 * @param linkAddress the peer's link-layer address
 * @param path the PathRecord the handle was built from
 * @param serviceLevel the SL the handle uses
 */
public record Route(AddressHandle handle, Qpn qpn, LinkAddress linkAddress, PathRecord path, int serviceLevel) {

    /** This route to another QPN of the same port (the peer's interface was reset). */
    Route withAddress(LinkAddress address) {
        return new Route(handle, address.qpn(), address, path, serviceLevel);
    }
}
