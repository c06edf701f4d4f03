package ipoib.codec.nd;

/**
 * A deliberately plain ICMPv6 checksum over a byte array, written independently of
 * {@link Icmpv6Checksum}: it builds the RFC 8200 §8.1 pseudo-header as bytes and sums 16-bit
 * words (RFC 1071), so tests can fix up mutated packets and cross-check the codec.
 */
final class ReferenceChecksum {
    private ReferenceChecksum() {}

    /** The checksum of the IPv6 packet {@code p} (ICMPv6 right after the header), its field taken as zero. */
    static int of(byte[] p) {
        int icmpLength = Math.min(((p[4] & 0xFF) << 8) | (p[5] & 0xFF), p.length - 40);
        byte[] data = new byte[40 + icmpLength + 1];
        System.arraycopy(p, 8, data, 0, 32); // source and destination
        data[32] = (byte) (icmpLength >>> 24);
        data[33] = (byte) (icmpLength >>> 16);
        data[34] = (byte) (icmpLength >>> 8);
        data[35] = (byte) icmpLength;
        data[39] = 58;
        System.arraycopy(p, 40, data, 40, icmpLength);
        data[42] = 0;
        data[43] = 0;
        int sum = 0;
        for (int i = 0; i + 1 < data.length; i += 2) {
            sum += ((data[i] & 0xFF) << 8) | (data[i + 1] & 0xFF);
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~sum & 0xFFFF;
    }

    /** Stores the right checksum into {@code p} and returns it. */
    static byte[] fix(byte[] p) {
        int c = of(p);
        p[42] = (byte) (c >>> 8);
        p[43] = (byte) c;
        return p;
    }
}
