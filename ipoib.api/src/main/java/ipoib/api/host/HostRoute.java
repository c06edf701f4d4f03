package ipoib.api.host;

import java.net.InetAddress;

/**
 * How a packet to a destination leaves the host: the interface, the source address it carries
 * and the next hop to resolve on the link (the destination itself: the host layer sends on-link
 * only).
 *
 * @param link the interface name
 * @param source the source address
 * @param nextHop the neighbour the resolver resolves
 * @param mtu the IP MTU of the family on the link
 */
public record HostRoute(String link, InetAddress source, InetAddress nextHop, int mtu) {
}
