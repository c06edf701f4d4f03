package ipoib.netdev.internal;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What a NIC with TCP segmentation offload does with the kernel's large TCP segments (the
 * software equivalent is Linux's {@code tcp_gso_segment}, net/ipv4/tcp_offload.c, and
 * {@code inet_gso_segment}, net/ipv4/af_inet.c): each {@code gsoSize} octets of payload go out
 * as one segment with the IP and TCP headers copied, the IPv4 total length, identification
 * (incremented per segment) and header checksum, or the IPv6 payload length, the TCP sequence
 * number advanced, FIN and PSH on the last segment only, CWR on the first only, and the TCP
 * checksum computed over the pseudo-header (RFC 9293 §3.1). Also completes the checksum of a
 * packet whose checksum the kernel left to the device.
 *
 * <p>Handles TCP directly after the IPv4 header or the fixed IPv6 header, which is what the
 * kernel offloads to a TUN device with {@code TUN_F_TSO4 | TUN_F_TSO6}; anything else is
 * refused. Allocation-free: segments are built one at a time in the caller's buffer.
 */
final class TcpSegmentation {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final int TCP = 6;
    private static final int FIN = 0x01;
    private static final int PSH = 0x08;
    private static final int CWR = 0x80;

    /** Receives each segment built, in order. */
    interface Sink {
        void segment(MemorySegment buffer, int length);
    }

    private TcpSegmentation() {}

    /**
     * Completes a checksum the kernel left to the device ({@code VIRTIO_NET_HDR_F_NEEDS_CSUM}):
     * the field at {@code start + offset} holds the pseudo-header's sum; the ones'-complement sum
     * from {@code start} to the end goes there (Linux's {@code skb_checksum_help}).
     *
     * @return false when start and offset do not lie inside the packet
     */
    static boolean completeChecksum(MemorySegment packet, int length, int start, int offset) {
        if (start + offset + 2 > length) {
            return false;
        }
        InternetChecksum.store(packet, start + offset, InternetChecksum.add(packet, start, length - start, 0));
        return true;
    }

    /**
     * Cuts the TCP segment of {@code length} octets in {@code packet} into segments of at most
     * {@code mss} payload octets, built in {@code out} (room for the headers and {@code mss}).
     *
     * @return how many segments went to {@code sink}, or -1 when the packet is not a TCP segment
     *         over IPv4 or IPv6 this can cut
     */
    static int segment(MemorySegment packet, int length, int mss, MemorySegment out, Sink sink) {
        if (mss <= 0 || length < 20) {
            return -1;
        }
        int version = Byte.toUnsignedInt(packet.get(ValueLayout.JAVA_BYTE, 0)) >>> 4;
        int ipLength;
        if (version == 4) {
            ipLength = (packet.get(ValueLayout.JAVA_BYTE, 0) & 0xF) * 4;
            if (ipLength < 20 || packet.get(ValueLayout.JAVA_BYTE, 9) != TCP) {
                return -1;
            }
        } else if (version == 6 && length >= 40 && packet.get(ValueLayout.JAVA_BYTE, 6) == TCP) {
            ipLength = 40;
        } else {
            return -1;
        }
        if (length < ipLength + 20) {
            return -1;
        }
        int tcpLength = ((packet.get(ValueLayout.JAVA_BYTE, ipLength + 12) >>> 4) & 0xF) * 4;
        int headers = ipLength + tcpLength;
        int payload = length - headers;
        if (tcpLength < 20 || payload < 0 || headers + Math.min(mss, payload) > out.byteSize()) {
            return -1;
        }
        int sequence = packet.get(INT_BE, ipLength + 4);
        int flags = Byte.toUnsignedInt(packet.get(ValueLayout.JAVA_BYTE, ipLength + 13));
        int id = version == 4 ? Short.toUnsignedInt(packet.get(SHORT_BE, 4)) : 0;
        int count = 0;
        int from = 0;
        do {
            int chunk = Math.min(mss, payload - from);
            boolean first = from == 0;
            boolean last = from + chunk == payload;
            MemorySegment.copy(packet, 0, out, 0, headers);
            MemorySegment.copy(packet, headers + from, out, headers, chunk);
            int segmentLength = headers + chunk;
            long pseudo;
            if (version == 4) {
                out.set(SHORT_BE, 2, (short) segmentLength);
                out.set(SHORT_BE, 4, (short) (id + count));
                out.set(SHORT_BE, 10, (short) 0);
                InternetChecksum.store(out, 10, InternetChecksum.add(out, 0, ipLength, 0));
                pseudo = InternetChecksum.add(out, 12, 8, TCP + tcpLength + chunk);
            } else {
                out.set(SHORT_BE, 4, (short) (tcpLength + chunk));
                pseudo = InternetChecksum.add(out, 8, 32, TCP + tcpLength + chunk);
            }
            out.set(INT_BE, ipLength + 4, sequence + from);
            int segmentFlags = flags & ~((last ? 0 : FIN | PSH) | (first ? 0 : CWR));
            out.set(ValueLayout.JAVA_BYTE, ipLength + 13, (byte) segmentFlags);
            out.set(SHORT_BE, ipLength + 16, (short) 0);
            InternetChecksum.store(out, ipLength + 16, InternetChecksum.add(out, ipLength, tcpLength + chunk, pseudo));
            sink.segment(out, segmentLength);
            count++;
            from += chunk;
        } while (from < payload);
        return count;
    }
}
