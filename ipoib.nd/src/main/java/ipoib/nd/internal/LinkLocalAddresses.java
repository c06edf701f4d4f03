package ipoib.nd.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.nd.InterfaceIdentifiers;
import java.net.Inet6Address;

/**
 * Each interface's link-local address (RFC 4391 §8.1): fe80::/64 with the interface identifier
 * from the port GUID (u-bit rule) or, when configured, from the port LID; and the identifier
 * that SLAAC appends to a prefix.
 */
final class LinkLocalAddresses {
    private final NdServices nd;

    LinkLocalAddresses(NdServices nd) {
        this.nd = nd;
    }

    /** The link-local address of RFC 4391 §8.1, or null when it is off or cannot be formed. */
    Inet6Address of(IpoibLink link) {
        NdOptions o = nd.options;
        if (!o.linkLocal() || link.gid() == null) {
            return null;
        }
        try {
            long id = o.lidIdentifier()
                    ? InterfaceIdentifiers.fromLid(link.port().attributes().lid())
                    : InterfaceIdentifiers.fromGuid(link.gid().guid());
            return InterfaceIdentifiers.linkLocal(id);
        } catch (RuntimeException e) {
            nd.reporter.warn("no link-local address for " + link.name() + ": " + e.getMessage());
            return null;
        }
    }

    /** The interface identifier of the link's addresses. */
    long interfaceIdentifier(IpoibLink link) {
        Inet6Address ll = of(link);
        return ll == null ? InterfaceIdentifiers.fromGuid(link.gid().guid()) : AddressBits.low(ll);
    }

    /**
     * Makes the table hold the link's link-local address of the current identifier: one of another
     * identifier (the configuration changed) goes, a missing one is added (tentative: DAD runs).
     */
    void ensure(IpoibLink link, InterfaceAddresses table) {
        Inet6Address linkLocal = of(link);
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.origin() == AddressOrigin.LINK_LOCAL && !a.address().equals(linkLocal)) {
                table.remove(link.name(), a.address());
            }
        }
        if (linkLocal != null && nd.find(link, linkLocal) == null) {
            table.add(link.name(), linkLocal, 64, AddressOrigin.LINK_LOCAL, null);
        }
    }
}
