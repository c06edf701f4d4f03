package ipoib.neighbour;

import ipoib.api.Qpn;
import ipoib.api.link.IpoibLink;

/**
 * The neighbour table of one link during one UP period (identified by the link's own QPN,
 * which changes when the interface is reset).
 */
final class LinkContext {
    final IpoibLink link;
    final String name;
    final Qpn ownQpn;
    final NeighbourMap map = new NeighbourMap();
    volatile boolean closed;

    LinkContext(IpoibLink link, Qpn ownQpn) {
        this.link = link;
        this.name = link.name();
        this.ownQpn = ownQpn;
    }
}
