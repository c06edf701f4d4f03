package ipoib.neighbour;

import ipoib.api.link.IpoibLink;

/**
 * The protocol of a {@link NeighbourEngine} that itself needs the engine (ARP and ND answer and
 * learn through the table): the engine is built with this, the protocol with the engine, and
 * {@link #bind} joins them before any link is added.
 */
public final class DeferredProtocol implements Protocol {
    private volatile Protocol target;

    /** The protocol every call goes to from now on; once. */
    public void bind(Protocol protocol) {
        if (target != null) {
            throw new IllegalStateException("the protocol is bound already");
        }
        target = protocol;
    }

    private Protocol target() {
        Protocol t = target;
        if (t == null) {
            throw new IllegalStateException("no protocol bound yet");
        }
        return t;
    }

    @Override
    public String solicit(IpoibLink link, long high, long low, Route unicast) {
        return target().solicit(link, high, low, unicast);
    }

    @Override
    public String cannotResolve(IpoibLink link, long high, long low) {
        return target().cannotResolve(link, high, low);
    }

    @Override
    public String notANeighbour(String linkName, long high, long low) {
        return target().notANeighbour(linkName, high, low);
    }
}
