package ipoib.api.host;

import org.osgi.annotation.versioning.ProviderType;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The IP host over the IPoIB links: sends on-link (the next hop is the destination), answers
 * echo requests to its addresses, and sends echo requests.
 *
 * <p>Packets go to the {@link ipoib.api.resolve.NeighbourResolver} of their family; while there
 * is none (e.g. the arp bundle is being updated) they are dropped and counted as
 * {@link ipoib.api.link.TransmitResult#DROPPED_NO_RESOLVER}.
 */
@ProviderType
public interface IpHost {

    /**
     * The route to a destination: when {@code linkName} is null, the first UP interface (by
     * name) with a usable address whose prefix holds the destination and that does not own it
     * itself; an IPv6 link-local destination is on-link on every interface.
     *
     * @return the route, or empty when there is none
     */
    Optional<HostRoute> route(String linkName, InetAddress destination);

    /**
     * Sends one ICMP or ICMPv6 echo request with {@code payloadLength} octets of payload.
     *
     * @param linkName the interface, or null to choose by {@link #route}
     * @param identifier the echo identifier (0..0xFFFF)
     * @param sequence the echo sequence number (0..0xFFFF)
     * @return a stage completed with the reply; exceptionally with {@link HostException} when the
     *     request could not be sent, or with {@link java.util.concurrent.TimeoutException} when no
     *     reply came within {@code timeout}
     * @throws IllegalArgumentException for a payload that does not fit the MTU, naming both
     */
    CompletionStage<EchoReply> echo(String linkName, InetAddress destination, int identifier, int sequence,
                                    int payloadLength, Duration timeout);

    /**
     * Sends one ICMP or ICMPv6 echo request on a route from {@link #route} without routing again:
     * a caller that sends many requests to one destination (a ping) decides the route once.
     *
     * @param route the route: its link, source address and destination ({@link HostRoute#nextHop})
     * @return as {@link #echo(String, InetAddress, int, int, int, Duration)}; exceptionally with
     *     {@link HostException} also when the route's link is gone
     * @throws IllegalArgumentException for a payload that does not fit the route's MTU, naming both
     * @since 1.1
     */
    CompletionStage<EchoReply> echo(HostRoute route, int identifier, int sequence, int payloadLength,
                                    Duration timeout);

    /** The host's counters by name (packets in and out by protocol, and every drop by reason). */
    Map<String, Long> counters();

    /**
     * The counters of {@link #counters()} that concern one interface, per interface: each
     * interface that counted, by name, with every such counter (zero where it counted nothing).
     * Counts of no interface (a failed timer task, a datagram with no route) are in the totals only.
     *
     * @since 1.4
     */
    default Map<String, Map<String, Long>> countersByInterface() {
        return Map.of();
    }
}
