package ipoib.host.internal;

import ipoib.api.host.HostRoute;
import java.net.InetAddress;
import java.util.Optional;

/**
 * The routing decision: which link and source address a datagram to a destination takes. The
 * host makes it at most once per datagram (a ping once per run); tests count the calls.
 */
@FunctionalInterface
interface RouteLookup {

    /** The route, or empty (see {@link ipoib.api.host.IpHost#route}). */
    Optional<HostRoute> route(String linkName, InetAddress destination);
}
