package ipoib.nd.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.nd.InterfaceIdentifiers;
import ipoib.codec.nd.PrefixInformation;
import java.net.Inet6Address;
import java.time.Instant;
import java.time.InstantSource;

/**
 * Stateless address autoconfiguration (RFC 4862 §5.5.3): an address from each /64 prefix with
 * the A flag, valid for the prefix's valid lifetime (wall-clock, as the host's address table
 * keeps it), removed when it ends or a prefix says lifetime 0.
 */
final class Autoconfiguration {
    private final NdServices nd;
    private final LinkLocalAddresses linkLocals;
    /** The wall clock of the address table's lifetimes. */
    private final InstantSource wallClock;
    private long lastExpiry;

    Autoconfiguration(NdServices nd, LinkLocalAddresses linkLocals, InstantSource wallClock) {
        this.nd = nd;
        this.linkLocals = linkLocals;
        this.wallClock = wallClock;
        this.lastExpiry = nd.now() - 1_000_000_000L; // the first tick checks at once
    }

    /** One prefix of a Router Advertisement. */
    void prefix(IpoibLink link, PrefixInformation p, String router) {
        InterfaceAddresses table = nd.addresses;
        if (!nd.options.autoconf() || !p.autonomous() || table == null || p.prefix().isLinkLocalAddress()) {
            return;
        }
        if (p.preferredLifetime() > p.validLifetime()) {
            nd.reporter.debug("prefix " + AddressBits.text(p.prefix()) + "/" + p.prefixLength() + " from " + router
                    + ": preferred lifetime beyond the valid one; ignored (RFC 4862 §5.5.3 c)");
            return;
        }
        if (p.prefixLength() != 64) {
            nd.reporter.warn("prefix " + AddressBits.text(p.prefix()) + "/" + p.prefixLength() + " from " + router
                    + " on " + link.name() + ": the interface identifier has 64 bits, the prefix must be /64; ignored");
            return;
        }
        Inet6Address address = InterfaceIdentifiers.address(AddressBits.high(p.prefix()),
                linkLocals.interfaceIdentifier(link));
        InterfaceAddress existing = nd.find(link, address);
        if (p.validLifetime() == 0) {
            if (existing != null && existing.origin() == AddressOrigin.AUTOCONF) {
                table.remove(link.name(), address);
            }
            return;
        }
        if (existing != null && existing.origin() != AddressOrigin.AUTOCONF) {
            return;
        }
        Instant until = p.validLifetime() == PrefixInformation.INFINITE ? null
                : wallClock.instant().plusSeconds(p.validLifetime());
        if (existing == null) {
            nd.counters.autoconfigured.increment(link.name());
            nd.reporter.info("autoconfigured " + AddressBits.text(address) + "/64 on " + link.name() + " from " + router);
        }
        table.add(link.name(), address, 64, AddressOrigin.AUTOCONF, until);
    }

    /** The timer: once a second, autoconfigured addresses whose valid lifetime ended go. */
    void tick() {
        long now = nd.now();
        if (now - lastExpiry < 1_000_000_000L) {
            return;
        }
        lastExpiry = now;
        InterfaceAddresses table = nd.addresses;
        if (table == null) {
            return;
        }
        Instant wall = wallClock.instant();
        for (InterfaceAddress a : table.addresses(null)) {
            if (a.origin() == AddressOrigin.AUTOCONF && a.validUntil() != null && wall.isAfter(a.validUntil())) {
                nd.reporter.info(a.cidr() + " on " + a.link() + " expired (valid lifetime over)");
                table.remove(a.link(), a.address());
            }
        }
    }
}
