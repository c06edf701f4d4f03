package ipoib.codec.nd;

import ipoib.api.LinkAddress;
import java.net.Inet6Address;
import java.util.Optional;

/**
 * Neighbor Solicitation (RFC 4861 §4.3).
 *
 * @param source the sender, or {@code ::} during duplicate address detection
 * @param destination the target's solicited-node multicast address, or the target itself when
 *     verifying reachability
 * @param target the address being resolved; never multicast (§7.1.1)
 * @param sourceLinkAddress the sender's IPoIB address (option type 1); must be empty when the
 *     source is unspecified (§7.1.1)
 */
public record NeighborSolicitation(Inet6Address source, Inet6Address destination, Inet6Address target,
        Optional<LinkAddress> sourceLinkAddress) implements NdMessage {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException for a null part, a multicast target, or an unspecified
     *     source with a link-layer address or with a destination that is not solicited-node
     *     multicast
     */
    public NeighborSolicitation {
        Ipv6.requireNonNull("Neighbor Solicitation source", source);
        Ipv6.requireNonNull("Neighbor Solicitation destination", destination);
        Ipv6.requireNonNull("Neighbor Solicitation target", target);
        if (sourceLinkAddress == null) {
            throw new IllegalArgumentException("Neighbor Solicitation source link-layer address must not be null; use Optional.empty()");
        }
        if (Ipv6.isMulticast(target)) {
            throw new IllegalArgumentException("Neighbor Solicitation target " + target.getHostAddress()
                    + " is multicast (RFC 4861 §7.1.1)");
        }
        if (Ipv6.isUnspecified(source)) {
            if (!Ipv6.isSolicitedNodeMulticast(destination)) {
                throw new IllegalArgumentException("a Neighbor Solicitation from :: goes to a solicited-node multicast address (RFC 4861 §7.1.1), not "
                        + destination.getHostAddress());
            }
            if (sourceLinkAddress.isPresent()) {
                throw new IllegalArgumentException("a Neighbor Solicitation from :: carries no source link-layer address (RFC 4861 §7.1.1)");
            }
        }
    }

    /**
     * The solicitation that resolves {@code target} (RFC 4861 §7.2.2): to the target's
     * solicited-node multicast address, with the sender's link-layer address.
     */
    public static NeighborSolicitation resolve(Inet6Address source, Inet6Address target, LinkAddress self) {
        return new NeighborSolicitation(source, InterfaceIdentifiers.solicitedNodeMulticast(target), target,
                Optional.of(self));
    }

    /**
     * The duplicate address detection probe for {@code tentative} (RFC 4862 §5.4.2): from
     * {@code ::} to the solicited-node address, without a link-layer address.
     */
    public static NeighborSolicitation duplicateAddressDetection(Inet6Address tentative) {
        return new NeighborSolicitation(Ipv6.of(0, 0), InterfaceIdentifiers.solicitedNodeMulticast(tentative), tentative,
                Optional.empty());
    }

    @Override
    public int icmpType() {
        return TYPE_NEIGHBOR_SOLICITATION;
    }
}
