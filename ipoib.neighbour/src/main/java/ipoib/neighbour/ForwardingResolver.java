package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourSender;
import ipoib.api.resolve.PathInfoAnswer;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * A {@link NeighbourResolver} that hands every call to another: the DS component of ARP or ND,
 * which only wires services and configuration, over its engine, a plain class that unit tests
 * and benchmarks build with a constructor.
 */
public abstract class ForwardingResolver implements NeighbourResolver {

    /** The resolver that does the work. */
    protected abstract NeighbourResolver resolver();

    @Override
    public TransmitResult send(IpoibLink link, InetAddress nextHop, int etherType, MemorySegment packet) {
        return resolver().send(link, nextHop, etherType, packet);
    }

    @Override
    public TransmitResult send(IpoibLink link, long nextHopHigh, long nextHopLow, int etherType, MemorySegment packet) {
        return resolver().send(link, nextHopHigh, nextHopLow, etherType, packet);
    }

    @Override
    public NeighbourSender sender(IpoibLink link, long nextHopHigh, long nextHopLow) {
        return resolver().sender(link, nextHopHigh, nextHopLow);
    }

    @Override
    public PathInfoAnswer pathInfo(String linkName, InetAddress destination) {
        return resolver().pathInfo(linkName, destination);
    }

    @Override
    public List<NeighbourEntry> neighbours(String linkName) {
        return resolver().neighbours(linkName);
    }

    @Override
    public int flush(String linkName) {
        return resolver().flush(linkName);
    }

    @Override
    public void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress) {
        resolver().addPermanent(linkName, address, linkAddress);
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        return resolver().remove(linkName, address);
    }

    @Override
    public int linkMtu(String linkName) {
        return resolver().linkMtu(linkName);
    }

    @Override
    public Map<String, Long> counters() {
        return resolver().counters();
    }

    @Override
    public Map<String, Map<String, Long>> countersByInterface() {
        return resolver().countersByInterface();
    }
}
