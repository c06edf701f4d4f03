package ipoib.netdev.internal;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** An address with its prefix length, as {@code ip addr} writes it: {@code 10.0.0.1/24}, {@code fd00::1/64}. */
record Cidr(InetAddress address, int prefixLength) {

    /**
     * Parses {@code address/prefix}; a literal only (no name look-up).
     *
     * @throws IllegalArgumentException naming the value and what is allowed
     */
    static Cidr parse(String text) {
        String allowed = "allowed: an IPv4 or IPv6 literal with its prefix length, e.g. 10.0.0.1/24 or fd00::1/64";
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1) {
            throw new IllegalArgumentException("address '" + text + "' has no prefix length; " + allowed);
        }
        String literal = text.substring(0, slash);
        if (!literal.matches("[0-9A-Fa-f:.]+") || (!literal.contains(":") && !literal.matches("\\d+\\.\\d+\\.\\d+\\.\\d+"))) {
            throw new IllegalArgumentException("address '" + text + "' is not an IP literal; " + allowed);
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("address '" + text + "' is not an IP literal; " + allowed);
        }
        int max = address instanceof Inet4Address ? 32 : 128;
        int prefix;
        try {
            prefix = Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
            prefix = -1;
        }
        if (prefix < 1 || prefix > max) {
            throw new IllegalArgumentException("prefix length of '" + text + "' must be 1.." + max);
        }
        if (address.isMulticastAddress() || address.isAnyLocalAddress() || address.isLoopbackAddress()) {
            throw new IllegalArgumentException("address '" + text + "' is multicast, unspecified or loopback; "
                    + "a unicast address is needed");
        }
        return new Cidr(address, prefix);
    }

    boolean ipv6() {
        return !(address instanceof Inet4Address);
    }

    /** The IPv4 subnet broadcast address as an int (0 for IPv6 and /31, /32). */
    int broadcast4() {
        if (ipv6() || prefixLength >= 31) {
            return 0;
        }
        byte[] a = address.getAddress();
        int v = ((a[0] & 0xFF) << 24) | ((a[1] & 0xFF) << 16) | ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
        return v | (-1 >>> prefixLength);
    }

    @Override
    public String toString() {
        return ipoib.api.resolve.AddressBits.text(address) + "/" + prefixLength; // IPv6 compressed, as ip(8) shows it
    }
}
