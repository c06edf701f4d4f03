package ipoib.api.host;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Instant;

/**
 * An address of an interface.
 *
 * @param link the interface (link) name
 * @param address the address (IPv6 without scope)
 * @param prefixLength 0..32 for IPv4, 0..128 for IPv6: the on-link prefix
 * @param origin where it comes from
 * @param state its state
 * @param validUntil when it expires (autoconfigured addresses), or null for never
 */
public record InterfaceAddress(String link, InetAddress address, int prefixLength, AddressOrigin origin,
                               AddressState state, Instant validUntil) {

    /**
     * @throws IllegalArgumentException for a null part or a prefix length outside the family's range
     */
    public InterfaceAddress {
        if (link == null || address == null || origin == null || state == null) {
            throw new IllegalArgumentException("interface address needs a link, an address, an origin and a state");
        }
        int max = address instanceof Inet4Address ? 32 : 128;
        if (prefixLength < 0 || prefixLength > max) {
            throw new IllegalArgumentException("invalid prefix length " + prefixLength + " of " + address.getHostAddress()
                    + ": allowed 0.." + max);
        }
    }

    /** Whether this is an IPv6 address. */
    public boolean ipv6() {
        return !(address instanceof Inet4Address);
    }

    /** Whether {@code other} (of the same family) lies in this address's prefix. */
    public boolean contains(InetAddress other) {
        byte[] a = address.getAddress();
        byte[] b = other.getAddress();
        if (a.length != b.length) {
            return false;
        }
        int bits = prefixLength;
        for (int i = 0; i < a.length && bits > 0; i++, bits -= 8) {
            int mask = bits >= 8 ? 0xFF : (0xFF << (8 - bits)) & 0xFF;
            if ((a[i] & mask) != (b[i] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** This address in another state. */
    public InterfaceAddress withState(AddressState newState) {
        return new InterfaceAddress(link, address, prefixLength, origin, newState, validUntil);
    }

    /** {@code 10.0.0.1/24} or {@code fe80::2:c903:0:101/64}. */
    public String cidr() {
        return ipoib.api.resolve.AddressBits.text(address) + "/" + prefixLength;
    }

    @Override
    public String toString() {
        return link + " " + cidr() + " " + state + " (" + origin + (validUntil == null ? "" : ", valid until " + validUntil)
                + ")";
    }
}
