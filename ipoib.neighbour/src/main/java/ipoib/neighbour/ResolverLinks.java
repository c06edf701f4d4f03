package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The links a resolver (ARP, ND) is bound to, by name, kept in step with its
 * {@link NeighbourEngine}: a bound link that is UP has a table.
 */
public final class ResolverLinks {
    private final NeighbourEngine engine;
    private final Map<String, IpoibLink> links = new ConcurrentHashMap<>();

    public ResolverLinks(NeighbourEngine engine) {
        this.engine = engine;
    }

    /** A link was bound: tracked, and brought up in the engine when UP. Returns whether it is UP. */
    public boolean add(IpoibLink link) {
        links.put(link.name(), link);
        if (link.state() == LinkState.UP) {
            engine.linkUp(link);
            return true;
        }
        return false;
    }

    /** A link was unbound: forgotten, and down in the engine. */
    public void remove(IpoibLink link) {
        links.remove(link.name(), link);
        engine.linkDown(link);
    }

    /** A link came UP. */
    public void up(IpoibLink link) {
        links.putIfAbsent(link.name(), link);
        engine.linkUp(link);
    }

    /** The bound link of that name, or null. */
    public IpoibLink get(String name) {
        return links.get(name);
    }

    /** The bound links. */
    public Collection<IpoibLink> all() {
        return links.values();
    }

    /** The link's MTU when it is bound and UP, else 0. */
    public int upMtu(String name) {
        IpoibLink link = links.get(name);
        return link == null || link.state() != LinkState.UP ? 0 : link.mtu();
    }

    /** Throws unless a link of that name is bound. */
    public void require(String name) {
        if (!links.containsKey(name)) {
            throw new IllegalArgumentException("no interface '" + name + "' (known: "
                    + String.join(", ", links.keySet().stream().sorted().toList()) + ")");
        }
    }

    /** Throws unless the address can be a neighbour's: a unicast QPN and port GID. */
    public static void requireUnicast(LinkAddress linkAddress) {
        if (linkAddress == null || linkAddress.isMulticast() || linkAddress.gid().isMulticast()) {
            throw new IllegalArgumentException("a neighbour's link-layer address is a unicast QPN and port GID, not "
                    + linkAddress);
        }
    }
}
