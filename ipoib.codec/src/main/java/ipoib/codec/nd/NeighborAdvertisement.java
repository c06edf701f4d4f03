package ipoib.codec.nd;

import ipoib.api.LinkAddress;
import java.net.Inet6Address;
import java.util.Optional;

/**
 * Neighbor Advertisement (RFC 4861 §4.4).
 *
 * @param source the advertising interface's address
 * @param destination the soliciting node, or all-nodes {@code ff02::1}
 * @param router the R flag: the sender is a router
 * @param solicited the S flag: an answer to a solicitation; never set towards a multicast
 *     destination (§7.1.2)
 * @param override the O flag: the advertisement overrides a cached link-layer address
 * @param target the address advertised; never multicast (§7.1.2)
 * @param targetLinkAddress the advertiser's IPoIB address (option type 2)
 */
public record NeighborAdvertisement(Inet6Address source, Inet6Address destination, boolean router, boolean solicited,
        boolean override, Inet6Address target, Optional<LinkAddress> targetLinkAddress) implements NdMessage {

    /** The all-nodes multicast address {@code ff02::1} (RFC 4291 §2.7.1). */
    public static final Inet6Address ALL_NODES = Ipv6.of(0xFF02_0000_0000_0000L, 1);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException for a null part, a multicast target, or the S flag
     *     towards a multicast destination
     */
    public NeighborAdvertisement {
        Ipv6.requireNonNull("Neighbor Advertisement source", source);
        Ipv6.requireNonNull("Neighbor Advertisement destination", destination);
        Ipv6.requireNonNull("Neighbor Advertisement target", target);
        if (targetLinkAddress == null) {
            throw new IllegalArgumentException("Neighbor Advertisement target link-layer address must not be null; use Optional.empty()");
        }
        if (Ipv6.isMulticast(target)) {
            throw new IllegalArgumentException("Neighbor Advertisement target " + target.getHostAddress()
                    + " is multicast (RFC 4861 §7.1.2)");
        }
        if (solicited && Ipv6.isMulticast(destination)) {
            throw new IllegalArgumentException("a Neighbor Advertisement to multicast " + destination.getHostAddress()
                    + " has the S flag clear (RFC 4861 §7.1.2)");
        }
    }

    /**
     * The answer to {@code solicitation} from the interface at {@code self} (RFC 4861 §7.2.4):
     * to the solicitor with S set, or to all-nodes with S clear when the solicitor was {@code ::};
     * O set; the target link-layer address included.
     *
     * @param source the answering interface's address (the solicitation's target, normally)
     */
    public static NeighborAdvertisement answer(NeighborSolicitation solicitation, Inet6Address source, boolean router,
            LinkAddress self) {
        boolean fromUnspecified = Ipv6.isUnspecified(solicitation.source());
        return new NeighborAdvertisement(source, fromUnspecified ? ALL_NODES : solicitation.source(), router,
                !fromUnspecified, true, solicitation.target(), Optional.of(self));
    }

    @Override
    public int icmpType() {
        return TYPE_NEIGHBOR_ADVERTISEMENT;
    }
}
