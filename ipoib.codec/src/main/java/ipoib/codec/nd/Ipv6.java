package ipoib.codec.nd;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.net.UnknownHostException;

/** IPv6 address helpers shared by this package (RFC 4291 address classes). */
final class Ipv6 {
    private Ipv6() {}

    static final int ADDRESS_LENGTH = 16;

    /**
     * The address of 16 octets. Unlike {@code InetAddress.getByAddress} this never turns an
     * IPv4-mapped address into an {@code Inet4Address}, and sets no scope.
     */
    static Inet6Address of(byte[] octets) {
        try {
            return Inet6Address.getByAddress(null, octets, -1);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("an IPv6 address has 16 octets, got " + octets.length, e);
        }
    }

    static Inet6Address of(long high, long low) {
        byte[] b = new byte[ADDRESS_LENGTH];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (high >>> (56 - 8 * i));
            b[i + 8] = (byte) (low >>> (56 - 8 * i));
        }
        return of(b);
    }

    static Inet6Address read(MemorySegment buf, long offset) {
        byte[] b = new byte[ADDRESS_LENGTH];
        MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, offset, b, 0, ADDRESS_LENGTH);
        return of(b);
    }

    static void write(MemorySegment buf, long offset, Inet6Address address) {
        MemorySegment.copy(address.getAddress(), 0, buf, ValueLayout.JAVA_BYTE, offset, ADDRESS_LENGTH);
    }

    static boolean isUnspecified(Inet6Address a) {
        for (byte b : a.getAddress()) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** fe80::/10 */
    static boolean isLinkLocal(Inet6Address a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) == 0xFE && (b[1] & 0xC0) == 0x80;
    }

    static boolean isMulticast(Inet6Address a) {
        return (a.getAddress()[0] & 0xFF) == 0xFF;
    }

    /** ff02::1:ff00:0/104 (RFC 4291 §2.7.1). */
    static boolean isSolicitedNodeMulticast(Inet6Address a) {
        byte[] b = a.getAddress();
        if ((b[0] & 0xFF) != 0xFF || b[1] != 0x02 || b[11] != 0x01 || (b[12] & 0xFF) != 0xFF) {
            return false;
        }
        for (int i = 2; i < 11; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    static Inet6Address requireNonNull(String what, Inet6Address a) {
        if (a == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        return a;
    }
}
