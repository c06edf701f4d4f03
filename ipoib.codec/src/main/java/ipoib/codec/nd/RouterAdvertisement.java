package ipoib.codec.nd;

import ipoib.api.LinkAddress;
import java.net.Inet6Address;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Router Advertisement (RFC 4861 §4.2) with the options a host acts on: source link-layer
 * address (type 1), MTU (type 5, §4.6.4) and Prefix Information (type 3, §4.6.2).
 *
 * @param source the router's link-local address (§6.1.2)
 * @param destination all-nodes {@code ff02::1} or the soliciting host
 * @param curHopLimit 0..255, 0 meaning unspecified
 * @param managed the M flag: addresses are available by DHCPv6
 * @param otherConfig the O flag: other configuration is available by DHCPv6
 * @param routerLifetime 0..65535 seconds, 0 meaning not a default router
 * @param reachableTime 0..0xFFFFFFFF milliseconds, 0 meaning unspecified
 * @param retransTimer 0..0xFFFFFFFF milliseconds, 0 meaning unspecified
 * @param sourceLinkAddress the router's IPoIB address, if advertised
 * @param mtu the advertised link MTU (0..0xFFFFFFFF), if any
 * @param prefixes the Prefix Information options in order (copied)
 */
public record RouterAdvertisement(Inet6Address source, Inet6Address destination, int curHopLimit, boolean managed,
        boolean otherConfig, int routerLifetime, long reachableTime, long retransTimer,
        Optional<LinkAddress> sourceLinkAddress, OptionalLong mtu, List<PrefixInformation> prefixes)
        implements NdMessage {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException for a null part, a value outside its field, or a source
     *     that is not link-local (§6.1.2)
     */
    public RouterAdvertisement {
        Ipv6.requireNonNull("Router Advertisement source", source);
        Ipv6.requireNonNull("Router Advertisement destination", destination);
        if (!Ipv6.isLinkLocal(source)) {
            throw new IllegalArgumentException("a Router Advertisement comes from a link-local address (RFC 4861 §6.1.2), not "
                    + source.getHostAddress());
        }
        NdChecks.range("current hop limit", curHopLimit, 0xFF);
        NdChecks.range("router lifetime", routerLifetime, 0xFFFF);
        NdChecks.u32("reachable time", reachableTime);
        NdChecks.u32("retrans timer", retransTimer);
        if (sourceLinkAddress == null || mtu == null || prefixes == null) {
            throw new IllegalArgumentException("Router Advertisement options must not be null; use empty values");
        }
        if (mtu.isPresent()) {
            NdChecks.u32("MTU", mtu.getAsLong());
        }
        for (PrefixInformation p : prefixes) {
            if (p == null) {
                throw new IllegalArgumentException("Router Advertisement prefixes must not contain null");
            }
        }
        prefixes = List.copyOf(prefixes);
    }

    @Override
    public int icmpType() {
        return TYPE_ROUTER_ADVERTISEMENT;
    }
}
