package ipoib.netdev.internal;

import java.nio.ByteBuffer;

/** IPv6 packets and extension headers laid out by hand as RFC 8200 §3, §4.3–4.6 and RFC 4861 §4.2 define them. */
final class Ipv6Packets {
    static final int HOP_BY_HOP = 0;
    static final int TCP = 6;
    static final int UDP = 17;
    static final int ROUTING = 43;
    static final int FRAGMENT = 44;
    static final int ICMPV6 = 58;
    static final int DESTINATION_OPTIONS = 60;
    static final byte[] LINK_LOCAL_1 = address("fe800000000000000202c90300000101");
    static final byte[] ALL_NODES = address("ff020000000000000000000000000001");
    static final byte[] ULA_2 = address("fd000000000000000000000000000002");

    private Ipv6Packets() {}

    static byte[] address(String hex) {
        return java.util.HexFormat.of().parseHex(hex);
    }

    /** The fixed header (version 6, hop limit 255) followed by {@code rest} (extension headers and upper layer). */
    static byte[] ipv6(int nextHeader, byte[] source, byte[] destination, byte[]... rest) {
        int length = 0;
        for (byte[] r : rest) {
            length += r.length;
        }
        ByteBuffer b = ByteBuffer.allocate(40 + length);
        b.putInt(0x6000_0000).putShort((short) length).put((byte) nextHeader).put((byte) 255);
        b.put(source).put(destination);
        for (byte[] r : rest) {
            b.put(r);
        }
        return b.array();
    }

    /**
     * A Hop-by-Hop or Destination Options header of {@code units} 8-octet units: next header, Hdr Ext
     * Len {@code units - 1}, then one PadN option filling the rest (RFC 8200 §4.2).
     */
    static byte[] options(int nextHeader, int units) {
        byte[] h = new byte[units * 8];
        h[0] = (byte) nextHeader;
        h[1] = (byte) (units - 1);
        h[2] = 1; // PadN
        h[3] = (byte) (h.length - 4);
        return h;
    }

    /** A Routing header of type 4 (segment routing, RFC 8754) with Segments Left 0 and one segment. */
    static byte[] routing(int nextHeader) {
        byte[] h = new byte[24];
        h[0] = (byte) nextHeader;
        h[1] = 2; // 2 units after the first: 16 octets of segment list
        h[2] = 4;
        return h;
    }

    /** A Fragment header: offset in 8-octet units, the M flag, identification 0x1234 (RFC 8200 §4.5). */
    static byte[] fragment(int nextHeader, int offset, boolean more) {
        ByteBuffer b = ByteBuffer.allocate(8);
        b.put((byte) nextHeader).put((byte) 0).putShort((short) (offset << 3 | (more ? 1 : 0))).putInt(0x1234);
        return b.array();
    }

    /**
     * A Router Advertisement (RFC 4861 §4.2) with a Prefix Information option for fd00::/64
     * (on-link, autonomous: what gives a host a SLAAC address); checksum left 0.
     */
    static byte[] routerAdvertisement() {
        ByteBuffer b = ByteBuffer.allocate(16 + 32);
        b.put((byte) 134).put((byte) 0).putShort((short) 0);
        b.put((byte) 64).put((byte) 0).putShort((short) 1800).putInt(0).putInt(0);
        b.put((byte) 3).put((byte) 4).put((byte) 64).put((byte) 0xC0).putInt(86400).putInt(14400).putInt(0);
        b.put(address("fd000000000000000000000000000000"));
        return b.array();
    }

    /** An ICMPv6 echo request (RFC 4443 §4.1). */
    static byte[] echoRequest() {
        return new byte[] {(byte) 128, 0, 0, 0, 0, 1, 0, 1, 'p', 'i', 'n', 'g'};
    }

    /** A UDP header and 8 octets of payload (RFC 768), checksum left 0. */
    static byte[] udp() {
        return new byte[] {0x13, (byte) 0x88, 0x13, (byte) 0x89, 0, 16, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
    }
}
