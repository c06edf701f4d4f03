package ipoib.api.resolve;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;

/**
 * Resolves IP next hops of one address family to link destinations and sends to them.
 * Registered as a service with {@value #FAMILY_PROPERTY} = {@code ipv4} or {@code ipv6}.
 */
@ProviderType
public interface NeighbourResolver {

    /** Service property: {@code ipv4} (ARP) or {@code ipv6} (Neighbor Discovery). */
    String FAMILY_PROPERTY = "ipoib.family";

    /**
     * Sends an IP packet to a next hop on the link: at once when the neighbour is resolved,
     * else queued (bounded) while resolution runs. Never blocks.
     */
    TransmitResult send(IpoibLink link, InetAddress nextHop, int etherType, MemorySegment packet);

    /** The path information of a destination (design document §3.2). */
    PathInfoAnswer pathInfo(String linkName, InetAddress destination);

    /** Snapshots of a link's neighbour entries (all links when {@code linkName} is null). */
    List<NeighbourEntry> neighbours(String linkName);

    /** Removes every non-permanent entry of a link, freeing their queued frames (counted). */
    int flush(String linkName);

    /**
     * Adds a permanent entry.
     *
     * @throws IllegalArgumentException for an address of the other family or an unknown link
     */
    void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress);
}
