package ipoib.netdev.internal;

import ipoib.codec.ip.InternetChecksum;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * What a NIC with segmentation offload does with the kernel's large segments (the software
 * equivalents are Linux's {@code inet_gso_segment}, net/ipv4/af_inet.c, with
 * {@code tcp_gso_segment}, net/ipv4/tcp_offload.c, and {@code __udp_gso_segment},
 * net/ipv4/udp_offload.c): each {@code gsoSize} octets of payload go out as one packet with the
 * IP and transport headers copied, the IPv4 total length, identification (incremented per
 * packet) and header checksum, or the IPv6 payload length, and the transport checksum computed
 * over the pseudo-header. TCP (RFC 9293 §3.1): the sequence number advanced, FIN and PSH on the
 * last segment only, CWR on the first only. UDP (RFC 768, {@code UDP_SEGMENT}): each datagram
 * its own length, a checksum of zero sent as 0xFFFF. Also completes the checksum of a packet
 * whose checksum the kernel left to the device.
 *
 * <p>Handles TCP or UDP directly after the IPv4 header or the fixed IPv6 header, which is what the
 * kernel offloads to a TUN device with {@code TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_USO4 | TUN_F_USO6};
 * anything else is refused. Allocation-free: packets are built one at a time in the caller's buffer.
 *
 * <p>The segment size comes from the packet's {@link VnetHeader}, which a host can forge (a packet
 * socket with {@code PACKET_VNET_HDR}; the kernel's {@code virtio_net_hdr_to_skb},
 * include/linux/virtio_net.h, checks no minimum for TCP): a size of 1 would turn one 64 KiB packet
 * into 65 000 frames. So a TCP cut into segments smaller than {@value #MIN_TCP_SEGMENT} octets and
 * a UDP cut into more than {@value #MAX_UDP_SEGMENTS} datagrams are refused ({@link #REFUSED_SIZE}).
 */
final class Segmentation {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final int TCP = 6;
    static final int UDP = 17;
    private static final int FIN = 0x01;
    private static final int PSH = 0x08;
    private static final int CWR = 0x80;
    /**
     * The smallest TCP segment payload cut: Linux's {@code TCP_MIN_MSS}, the "minimal accepted
     * MSS" (include/net/tcp.h), 88. The kernel's own TCP cuts smaller only for a peer that
     * announces a smaller MSS (its tcp_min_snd_mss allows 48): the device's MTU is at least 2 044
     * and a learnt path MTU at least 552 (Linux's min_pmtu), an MSS of at least 472 with options.
     */
    static final int MIN_TCP_SEGMENT = 88;
    /**
     * The most datagrams one UDP_SEGMENT send becomes: Linux's {@code UDP_MAX_SEGMENTS}
     * (include/linux/udp.h; 64 before Linux 6.10, then 128), which the kernel enforces on the
     * application's send ({@code udp_send_skb}) and on a packet socket's header
     * ({@code virtio_net_hdr_to_skb}).
     */
    static final int MAX_UDP_SEGMENTS = 128;
    /** What {@link #tcp} and {@link #udp} return for a segment size they refuse. */
    static final int REFUSED_SIZE = -2;

    /** Receives each packet built, in order: {@code length} octets at {@code offset} of {@code buffer}. */
    interface Sink {
        void segment(MemorySegment buffer, long offset, int length);
    }

    private Segmentation() {}

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
        storeChecksum(packet, start + offset, InternetChecksum.sum(packet, start, length - start));
        return true;
    }

    /**
     * Cuts the TCP segment of {@code length} octets in {@code packet} into segments of at most
     * {@code mss} payload octets. Each but the last is built in place, its headers written just
     * before its payload, over the end of the previous segment's payload, which the sink has
     * sent by then (a copy of every payload octet less than building them elsewhere); the sink
     * must be done with a segment when it returns. {@code out} (room for the headers and
     * {@code mss}) keeps the headers as they came and holds the last segment.
     *
     * @return how many segments went to {@code sink}, or -1 when the packet is not a TCP segment
     *         over IPv4 or IPv6 this can cut, or {@link #REFUSED_SIZE} when it would be cut into
     *         segments smaller than {@link #MIN_TCP_SEGMENT}
     */
    static int tcp(MemorySegment packet, int length, int mss, MemorySegment out, Sink sink) {
        int ipLength = ipHeaderLength(packet, length, TCP, 20);
        if (mss <= 0 || ipLength < 0) {
            return -1;
        }
        int tcpLength = ((packet.get(ValueLayout.JAVA_BYTE, ipLength + 12) >>> 4) & 0xF) * 4;
        int headers = ipLength + tcpLength;
        int payload = length - headers;
        if (tcpLength < 20 || payload < 0 || headers + Math.min(mss, payload) > out.byteSize()) {
            return -1;
        }
        if (payload > mss && mss < MIN_TCP_SEGMENT) {
            return REFUSED_SIZE;
        }
        int sequence = packet.get(INT_BE, ipLength + 4);
        int flags = Byte.toUnsignedInt(packet.get(ValueLayout.JAVA_BYTE, ipLength + 13));
        MemorySegment.copy(packet, 0, out, 0, headers);
        int count = 0;
        int from = 0;
        do {
            int chunk = Math.min(mss, payload - from);
            boolean first = from == 0;
            boolean last = from + chunk == payload;
            MemorySegment frame;
            long at;
            if (last) {
                frame = out;
                at = 0;
                MemorySegment.copy(packet, headers + from, out, headers, chunk);
            } else {
                frame = packet;
                at = from;
                MemorySegment.copy(out, 0, packet, at, headers);
            }
            long pseudo = ipHeaders(out, frame, at, ipLength, headers, chunk, count, TCP);
            frame.set(INT_BE, at + ipLength + 4, sequence + from);
            int segmentFlags = flags & ~((last ? 0 : FIN | PSH) | (first ? 0 : CWR));
            frame.set(ValueLayout.JAVA_BYTE, at + ipLength + 13, (byte) segmentFlags);
            frame.set(SHORT_BE, at + ipLength + 16, (short) 0);
            storeChecksum(frame, at + ipLength + 16, pseudo + InternetChecksum.sum(frame, at + ipLength, tcpLength + chunk));
            sink.segment(frame, at, headers + chunk);
            count++;
            from += chunk;
        } while (from < payload);
        return count;
    }

    /**
     * Cuts the UDP datagram of {@code length} octets in {@code packet} (an application's
     * {@code UDP_SEGMENT} send) into datagrams of {@code size} payload octets (the last may be
     * shorter), built in {@code out}.
     *
     * @return how many datagrams went to {@code sink}, or -1 when the packet is not a UDP datagram
     *         over IPv4 or IPv6 this can cut, or {@link #REFUSED_SIZE} when it would become more
     *         than {@link #MAX_UDP_SEGMENTS} datagrams
     */
    static int udp(MemorySegment packet, int length, int size, MemorySegment out, Sink sink) {
        int ipLength = ipHeaderLength(packet, length, UDP, 8);
        if (size <= 0 || ipLength < 0) {
            return -1;
        }
        int headers = ipLength + 8;
        int payload = length - headers;
        if (headers + Math.min(size, payload) > out.byteSize()) {
            return -1;
        }
        if (payload > (long) size * MAX_UDP_SEGMENTS) {
            return REFUSED_SIZE;
        }
        int count = 0;
        int from = 0;
        do {
            int chunk = Math.min(size, payload - from);
            MemorySegment.copy(packet, 0, out, 0, headers);
            MemorySegment.copy(packet, headers + from, out, headers, chunk);
            long pseudo = ipHeaders(packet, out, 0, ipLength, headers, chunk, count, UDP);
            out.set(SHORT_BE, ipLength + 4, (short) (8 + chunk));
            out.set(SHORT_BE, ipLength + 6, (short) 0);
            storeChecksum(out, ipLength + 6, pseudo + InternetChecksum.sum(out, ipLength, 8 + chunk));
            sink.segment(out, 0, headers + chunk);
            count++;
            from += chunk;
        } while (from < payload);
        return count;
    }

    /**
     * The IP header's length when {@code protocol} follows the IPv4 header or the fixed IPv6
     * header and at least {@code transport} octets of it are there, else -1.
     */
    private static int ipHeaderLength(MemorySegment packet, int length, int protocol, int transport) {
        if (length < 20) {
            return -1;
        }
        int version = Byte.toUnsignedInt(packet.get(ValueLayout.JAVA_BYTE, 0)) >>> 4;
        int ipLength;
        if (version == 4) {
            ipLength = (packet.get(ValueLayout.JAVA_BYTE, 0) & 0xF) * 4;
            if (ipLength < 20 || packet.get(ValueLayout.JAVA_BYTE, 9) != protocol) {
                return -1;
            }
        } else if (version == 6 && length >= 40 && packet.get(ValueLayout.JAVA_BYTE, 6) == protocol) {
            ipLength = 40;
        } else {
            return -1;
        }
        return length < ipLength + transport ? -1 : ipLength;
    }

    /**
     * The IP header of packet {@code index} of a cut, at {@code at} in {@code frame} (a copy of
     * {@code original}'s headers): the IPv4 total length, identification and header checksum, or
     * the IPv6 payload length, for {@code chunk} payload octets.
     *
     * @return the pseudo-header's sum for the transport checksum
     */
    private static long ipHeaders(MemorySegment original, MemorySegment frame, long at, int ipLength, int headers,
                                  int chunk, int index, int protocol) {
        int transportLength = headers - ipLength + chunk;
        if ((original.get(ValueLayout.JAVA_BYTE, 0) & 0xF0) == 0x40) {
            frame.set(SHORT_BE, at + 2, (short) (headers + chunk));
            frame.set(SHORT_BE, at + 4, (short) (original.get(SHORT_BE, 4) + index));
            frame.set(SHORT_BE, at + 10, (short) 0);
            storeChecksum(frame, at + 10, InternetChecksum.sum(frame, at, ipLength));
            return protocol + transportLength + InternetChecksum.sum(frame, at + 12, 8);
        }
        frame.set(SHORT_BE, at + 4, (short) transportLength);
        return protocol + transportLength + InternetChecksum.sum(frame, at + 8, 32);
    }

    /**
     * Stores the checksum of an unfolded sum at {@code at}: its complement, and 0xFFFF for a
     * complement of zero, as Linux's {@code skb_checksum_help} (net/core/dev.c:
     * {@code csum_fold(csum) ?: CSUM_MANGLED_0}) does for a checksum a device completes (for UDP,
     * RFC 768's "all ones" for a computed zero).
     */
    static void storeChecksum(MemorySegment s, long at, long sum) {
        int checksum = InternetChecksum.complement(sum);
        s.set(SHORT_BE, at, (short) (checksum == 0 ? 0xFFFF : checksum));
    }
}
