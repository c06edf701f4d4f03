package ipoib.neighbour;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.NeighbourSender;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * The {@link NeighbourResolver} operations that ARP and ND answer straight from their
 * {@link NeighbourEngine}, whatever the address family.
 */
public abstract class EngineResolver implements NeighbourResolver {

    /** The component's engine. */
    protected abstract NeighbourEngine engine();

    @Override
    public TransmitResult send(IpoibLink link, long nextHopHigh, long nextHopLow, int etherType, MemorySegment packet) {
        return engine().send(link, nextHopHigh, nextHopLow, etherType, packet);
    }

    @Override
    public NeighbourSender sender(IpoibLink link, long nextHopHigh, long nextHopLow) {
        return engine().sender(link, nextHopHigh, nextHopLow);
    }

    @Override
    public List<NeighbourEntry> neighbours(String linkName) {
        return engine().neighbours(linkName);
    }

    @Override
    public int flush(String linkName) {
        return engine().flush(linkName);
    }

    @Override
    public Map<String, Long> counters() {
        return engine().counterSnapshot();
    }

    @Override
    public Map<String, Map<String, Long>> countersByInterface() {
        return engine().interfaceCounters().byInterface();
    }
}
