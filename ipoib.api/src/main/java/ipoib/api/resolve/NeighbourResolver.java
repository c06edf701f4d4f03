package ipoib.api.resolve;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * Resolves IP next hops of one address family to link destinations and sends to them.
 * Registered as a service with {@value #FAMILY_PROPERTY} = {@value #IPV4} or {@value #IPV6}.
 *
 * <p>The send methods are the data path: for a resolved neighbour they look the entry up and
 * hand the packet to {@link IpoibLink#sendUnicast} without allocating and without taking a lock
 * shared with other neighbours. Everything else is control plane.
 */
@ProviderType
public interface NeighbourResolver {

    /** Service property: {@value #IPV4} (ARP) or {@value #IPV6} (Neighbor Discovery). */
    String FAMILY_PROPERTY = "ipoib.family";
    /** Value of {@link #FAMILY_PROPERTY} of the ARP resolver. */
    String IPV4 = "ipv4";
    /** Value of {@link #FAMILY_PROPERTY} of the Neighbor Discovery resolver. */
    String IPV6 = "ipv6";

    /**
     * Sends an IP packet to a next hop on the link: at once when the neighbour is resolved,
     * else queued (bounded) while resolution runs. Never blocks. The packet is copied before
     * the method returns.
     */
    TransmitResult send(IpoibLink link, InetAddress nextHop, int etherType, MemorySegment packet);

    /**
     * The allocation-free form of {@link #send(IpoibLink, InetAddress, int, MemorySegment)}: the
     * next hop as 128 bits, see {@link AddressBits} (an IPv4 address is {@code (0, address)}).
     *
     * @since 1.1
     */
    TransmitResult send(IpoibLink link, long nextHopHigh, long nextHopLow, int etherType, MemorySegment packet);

    /**
     * A sender bound to one next hop on a link (see {@link NeighbourSender}), for a caller that
     * sends there often; it stays valid for the life of this resolver. The default looks the
     * neighbour up per frame.
     *
     * @since 1.2
     */
    default NeighbourSender sender(IpoibLink link, long nextHopHigh, long nextHopLow) {
        return (etherType, packet) -> send(link, nextHopHigh, nextHopLow, etherType, packet);
    }

    /** The path information of a destination (design document §3.2). */
    PathInfoAnswer pathInfo(String linkName, InetAddress destination);

    /** Snapshots of a link's neighbour entries (all links when {@code linkName} is null). */
    List<NeighbourEntry> neighbours(String linkName);

    /**
     * Removes every non-permanent entry of a link (all links when {@code linkName} is null),
     * freeing their queued frames (counted).
     *
     * @return the number of entries removed
     */
    int flush(String linkName);

    /**
     * Adds a permanent entry. Permanent entries are not revalidated: RFC 4391 §9.4 warns that
     * a peer's QPN may change when its interface is reset, after which the entry must be
     * updated by hand.
     *
     * @throws IllegalArgumentException for an address of the other family, a multicast link
     *     address or an unknown link
     */
    void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress);

    /**
     * Removes one entry, permanent or not, freeing its queued frames (counted).
     *
     * @return whether there was such an entry
     * @since 1.1
     */
    boolean remove(String linkName, InetAddress address);

    /**
     * The IP MTU of this family on a link: the link MTU, for IPv6 lowered by an accepted Router
     * Advertisement MTU option; 0 when the link is unknown or not UP.
     *
     * @since 1.1
     */
    int linkMtu(String linkName);

    /**
     * The resolver's counters by name (solicitations, answers, path lookups and failures, queued
     * frames and the drops of each kind), for the shell and diagnostics.
     *
     * @since 1.1
     */
    Map<String, Long> counters();

    /**
     * The same counters per interface: each interface that counted, by name, with every counter
     * of {@link #counters()} (zero where it counted nothing). Events of no interface are in the
     * totals only.
     *
     * @since 1.4
     */
    default Map<String, Map<String, Long>> countersByInterface() {
        return Map.of();
    }
}
