package ipoib.netdev.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The {@code struct virtio_net_hdr} before each packet of a TUN device opened with
 * {@code IFF_VNET_HDR} (include/uapi/linux/virtio_net.h): flags, GSO type, header length, GSO
 * segment size, checksum start and offset. The 16-bit fields are in the host's order (a TUN
 * device is little-endian on little-endian hosts and native otherwise unless {@code TUNSETVNETBE}
 * is used, drivers/net/tun_vnet.h).
 */
final class VnetHeader {
    /** {@code sizeof(struct virtio_net_hdr)}, the default {@code vnet_hdr_sz} of a TUN device. */
    static final int LENGTH = 10;
    /** {@code VIRTIO_NET_HDR_F_NEEDS_CSUM}: the checksum from checksum start on is left to the device. */
    static final int NEEDS_CHECKSUM = 1;
    static final int GSO_NONE = 0;
    static final int GSO_TCPV4 = 1;
    static final int GSO_TCPV6 = 4;
    /** {@code VIRTIO_NET_HDR_GSO_UDP_L4}: an application's UDP_SEGMENT send, IPv4 or IPv6. */
    static final int GSO_UDP_L4 = 5;
    /** {@code VIRTIO_NET_HDR_GSO_ECN}: a flag on the GSO type (the segments keep CWR on the first only). */
    static final int GSO_ECN = 0x80;

    private VnetHeader() {}

    static int flags(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, 0));
    }

    /** The GSO type without the ECN flag. */
    static int gsoType(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, 1)) & ~GSO_ECN;
    }

    static int gsoSize(MemorySegment s) {
        return Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 4));
    }

    static int checksumStart(MemorySegment s) {
        return Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6));
    }

    static int checksumOffset(MemorySegment s) {
        return Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 8));
    }
}
