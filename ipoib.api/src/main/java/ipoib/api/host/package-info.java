/**
 * The host layer over IPoIB links: per-interface IPv4 and IPv6 addresses, ICMP and ICMPv6 echo,
 * and a UDP datagram service for embedding applications.
 *
 * <p>Addresses live in the {@link ipoib.api.host.InterfaceAddresses} service: configured ones
 * (ConfigAdmin factory PID {@code ipoib.address}, or the shell), IPv6 link-local and
 * autoconfigured ones added by Neighbor Discovery, whose duplicate address detection moves IPv6
 * addresses from {@link ipoib.api.host.AddressState#TENTATIVE} to
 * {@link ipoib.api.host.AddressState#PREFERRED} or {@link ipoib.api.host.AddressState#DUPLICATE}.
 * IPv4 fragmentation is not implemented: a datagram that does not fit the link MTU is refused
 * with a message naming its size and the MTU.
 *
 * <p>1.1: {@link ipoib.api.host.IpHost#echo(HostRoute, int, int, int, java.time.Duration)} sends on a
 * route already chosen (one routing decision per datagram), and
 * {@link ipoib.api.host.NeighborDiscoveryReceiver} receives the Neighbor Discovery messages the host's
 * IPv6 demultiplexer hands over.
 *
 * <p>1.3: {@link ipoib.api.host.UdpSocket} sends a {@code byte[]} or a {@link java.nio.ByteBuffer}
 * as well as a {@link java.lang.foreign.MemorySegment}.
 */
@Export
@Version("1.3.0")
package ipoib.api.host;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
