package ipoib.codec.nd;

import ipoib.api.LinkAddress;
import java.net.Inet6Address;
import java.util.Optional;

/**
 * Router Solicitation (RFC 4861 §4.1).
 *
 * @param source the sender, or {@code ::} before it has an address
 * @param destination usually all-routers {@code ff02::2}
 * @param sourceLinkAddress the sender's IPoIB address (option type 1); must be empty when the
 *     source is unspecified (§6.1.1)
 */
public record RouterSolicitation(Inet6Address source, Inet6Address destination,
        Optional<LinkAddress> sourceLinkAddress) implements NdMessage {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException for a null part, or a link-layer address with an
     *     unspecified source
     */
    public RouterSolicitation {
        Ipv6.requireNonNull("Router Solicitation source", source);
        Ipv6.requireNonNull("Router Solicitation destination", destination);
        if (sourceLinkAddress == null) {
            throw new IllegalArgumentException("Router Solicitation source link-layer address must not be null; use Optional.empty()");
        }
        if (Ipv6.isUnspecified(source) && sourceLinkAddress.isPresent()) {
            throw new IllegalArgumentException("a Router Solicitation from :: carries no source link-layer address (RFC 4861 §6.1.1)");
        }
    }

    @Override
    public int icmpType() {
        return TYPE_ROUTER_SOLICITATION;
    }
}
