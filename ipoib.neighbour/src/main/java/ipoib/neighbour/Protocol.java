package ipoib.neighbour;

import ipoib.api.link.IpoibLink;

/** What the engine needs from the address-resolution protocol (ARP or ND). */
public interface Protocol {

    /**
     * Sends a solicitation for the neighbour {@code (high, low)}: to the link's broadcast or
     * solicited-node group when {@code unicast} is null, else to that route (a reachability
     * probe of a cached entry). Called on the engine's control thread; must not block.
     *
     * @return null when sent, else why it could not be (e.g. no local address to send from)
     */
    String solicit(IpoibLink link, long high, long low, Route unicast);

    /** Why the link cannot resolve the address now (e.g. no local address of the family), or null. */
    String cannotResolve(IpoibLink link, long high, long low);

    /**
     * Why the address can never be a neighbour beyond what the engine checks itself (multicast,
     * broadcast, unspecified, loopback): e.g. it is an address of the interface itself. Null
     * when it can be one.
     */
    default String notANeighbour(String linkName, long high, long low) {
        return null;
    }
}
