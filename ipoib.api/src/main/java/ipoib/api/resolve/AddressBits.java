package ipoib.api.resolve;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP addresses as two {@code long}s, the form the data path uses to avoid allocating: an IPv6
 * address is its upper and lower 64 bits; an IPv4 address is {@code (0, address)} with the
 * address in the lower 32 bits ({@code 10.0.0.1} is {@code (0, 0x0A000001)}).
 *
 * @since 1.1
 */
public final class AddressBits {
    private AddressBits() {}

    /** The upper 64 bits of an IPv6 address, 0 for IPv4. */
    public static long high(InetAddress address) {
        byte[] b = requireNonNull(address).getAddress();
        return b.length == 4 ? 0 : read(b, 0);
    }

    /** The lower 64 bits of an IPv6 address, or the IPv4 address as an unsigned 32-bit value. */
    public static long low(InetAddress address) {
        byte[] b = requireNonNull(address).getAddress();
        return b.length == 4 ? ipv4(address) & 0xFFFF_FFFFL : read(b, 8);
    }

    /** The {@code int} form of an IPv4 address (first octet most significant). */
    public static int ipv4(InetAddress address) {
        byte[] b = requireNonNull(address).getAddress();
        if (b.length != 4) {
            throw new IllegalArgumentException(address.getHostAddress() + " is not an IPv4 address");
        }
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /** The IPv4 address of an {@code int}. */
    public static Inet4Address ipv4(int address) {
        byte[] b = {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError("four octets are an IPv4 address", e);
        }
    }

    /** The IPv6 address of 128 bits (no scope; an IPv4-mapped address stays an {@link Inet6Address}). */
    public static Inet6Address ipv6(long high, long low) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (high >>> (56 - 8 * i));
            b[i + 8] = (byte) (low >>> (56 - 8 * i));
        }
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError("sixteen octets are an IPv6 address", e);
        }
    }

    /** The address of a family: {@code ipv6} false gives the IPv4 address in the low 32 bits. */
    public static InetAddress address(boolean ipv6, long high, long low) {
        return ipv6 ? ipv6(high, low) : ipv4((int) low);
    }

    /**
     * The text of an address: dotted IPv4, or IPv6 in the canonical compressed form of RFC 5952
     * ({@code fe80::202:c903:0:101}, not {@code fe80:0:0:0:202:c903:0:101}), without scope.
     */
    public static String text(InetAddress address) {
        byte[] b = requireNonNull(address).getAddress();
        return b.length == 4 ? address.getHostAddress() : new ipoib.api.Gid(read(b, 0), read(b, 8)).toString();
    }

    private static long read(byte[] b, int offset) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[offset + i] & 0xFF);
        }
        return v;
    }

    private static InetAddress requireNonNull(InetAddress address) {
        if (address == null) {
            throw new IllegalArgumentException("address must not be null");
        }
        return address;
    }
}
