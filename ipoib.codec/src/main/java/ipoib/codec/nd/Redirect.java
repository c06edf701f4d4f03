package ipoib.codec.nd;

import ipoib.api.LinkAddress;
import java.net.Inet6Address;
import java.util.Optional;

/**
 * Redirect (RFC 4861 §4.5). A Redirected Header option (type 4, §4.6.3) is checked for its
 * framing on decode and otherwise skipped; the encoder does not write one.
 *
 * @param source the router's link-local address (§8.1)
 * @param destination the host being redirected
 * @param target the better first hop: link-local, or equal to {@code redirectedDestination}
 *     when the destination is a neighbour (§8.1)
 * @param redirectedDestination the destination whose traffic is redirected; never multicast
 * @param targetLinkAddress the target's IPoIB address (option type 2), if known
 */
public record Redirect(Inet6Address source, Inet6Address destination, Inet6Address target,
        Inet6Address redirectedDestination, Optional<LinkAddress> targetLinkAddress) implements NdMessage {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException for a null part or a combination §8.1 rejects
     */
    public Redirect {
        Ipv6.requireNonNull("Redirect source", source);
        Ipv6.requireNonNull("Redirect destination", destination);
        Ipv6.requireNonNull("Redirect target", target);
        Ipv6.requireNonNull("Redirect redirected destination", redirectedDestination);
        if (targetLinkAddress == null) {
            throw new IllegalArgumentException("Redirect target link-layer address must not be null; use Optional.empty()");
        }
        if (!Ipv6.isLinkLocal(source)) {
            throw new IllegalArgumentException("a Redirect comes from a link-local address (RFC 4861 §8.1), not "
                    + source.getHostAddress());
        }
        if (Ipv6.isMulticast(redirectedDestination)) {
            throw new IllegalArgumentException("Redirect destination " + redirectedDestination.getHostAddress()
                    + " is multicast (RFC 4861 §8.1)");
        }
        if (!Ipv6.isLinkLocal(target) && !target.equals(redirectedDestination)) {
            throw new IllegalArgumentException("Redirect target " + target.getHostAddress()
                    + " is neither link-local nor the redirected destination (RFC 4861 §8.1)");
        }
    }

    @Override
    public int icmpType() {
        return TYPE_REDIRECT;
    }
}
