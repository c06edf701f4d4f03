package ipoib.netdev.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The {@link InetAddress} of each multicast group the kernel sends to, made once: the multicast
 * manager takes the group as an InetAddress, and the bridge's data path allocates nothing per
 * packet. Direct-mapped, {@value #SIZE} entries: a group that collides with another replaces it
 * (one allocation then). Used by the device's one reader thread.
 */
final class GroupAddresses {
    static final int SIZE = 256;

    private final long[] high = new long[SIZE];
    private final long[] low = new long[SIZE];
    private final InetAddress[] address = new InetAddress[SIZE];

    /** The IPv4 group {@code a} (network order in an int). */
    InetAddress ipv4(int a) {
        int i = Integer.hashCode(a * 0x9E3779B9) >>> 24;
        InetAddress cached = address[i];
        if (cached instanceof java.net.Inet4Address && high[i] == -1 && low[i] == a) {
            return cached;
        }
        InetAddress made = of4(a);
        high[i] = -1;
        low[i] = a;
        address[i] = made;
        return made;
    }

    /** The IPv6 group {@code high:low}. */
    InetAddress ipv6(long h, long l) {
        int i = (int) ((h * 31 + l) * 0x9E3779B97F4A7C15L >>> 56);
        InetAddress cached = address[i];
        if (cached instanceof java.net.Inet6Address && high[i] == h && low[i] == l) {
            return cached;
        }
        InetAddress made = of6(h, l);
        high[i] = h;
        low[i] = l;
        address[i] = made;
        return made;
    }

    static InetAddress of4(int address) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (address >>> 24), (byte) (address >>> 16),
                (byte) (address >>> 8), (byte) address});
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    static InetAddress of6(long high, long low) {
        byte[] a = new byte[16];
        for (int i = 0; i < 8; i++) {
            a[i] = (byte) (high >>> (56 - 8 * i));
            a[8 + i] = (byte) (low >>> (56 - 8 * i));
        }
        try {
            return InetAddress.getByAddress(a);
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
