package ipoib.netdev.internal;

import java.lang.foreign.Arena;
import ipoib.codec.ip.InternetChecksum;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Receive coalescing for the kernel, as Linux's GRO does for a NIC (tcp_gro_receive,
 * net/ipv4/tcp_offload.c; inet_gro_receive, net/ipv4/af_inet.c): consecutive in-order TCP
 * segments of one flow that arrive in one poll of the link are written to the device as one
 * segment of up to 64 KiB, with a {@link VnetHeader} that gives the segment size and leaves the
 * checksum partial, so that the receiving kernel runs its IP and TCP input once for them.
 *
 * <p>Only what GRO merges is merged: TCP directly after an IPv4 header without options (not a
 * fragment) or the fixed IPv6 header; a correct checksum (verified here, as a NIC verifies it
 * before GRO; a segment with a wrong one is written as it came, for the kernel to drop and
 * count); identical IP fields but length, identification (which increments, unless DF is set)
 * and checksum; the same ports, acknowledgment, window and options; the next sequence number;
 * only ACK (PSH ends a merge with that segment); every segment of the mss of the first but the
 * last. What is held is written at the end of the link's poll ({@link #flush()}), before a
 * frame that does not fit it, and before 64 KiB; a segment behind which a second as large would
 * not fit in 64 KiB is not held but written at once (connected mode's, of up to 65 520 octets):
 * when its checksum is correct (verified here, as a NIC does before it marks a packet's checksum
 * good) it is written with its checksum partial, as veth hands a segment between namespaces,
 * so that the receiving kernel does not verify it again; its headers go from a copy whose
 * checksum field holds the pseudo-header's sum, its payload from where it came (no copy). Frames
 * may come from the link's UD and connected-mode receive threads: the methods are synchronized.
 * Allocation-free.
 */
final class ReceiveCoalescing {
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int CAPACITY = 65535;
    private static final int ACK = 0x10;
    private static final int PSH = 0x08;

    /** Largest IPv6 and TCP headers (40 and 60 octets) and more: what {@link #verified} copies. */
    private static final int HEADERS_CAPACITY = 128;

    /** Writes packets to the device, each after a header (its address; 0: one asking for nothing). */
    interface Device {
        /** The packet at {@code address}. */
        boolean write(long headerAddress, long address, int length);

        /** The packet as its first {@code headersLength} octets at {@code headersAddress} and the rest at {@code restAddress}. */
        boolean write(long headerAddress, long headersAddress, int headersLength, long restAddress, int restLength);
    }

    private final Device device;
    private final LongAdder coalesced;
    private final LongAdder segmentsCoalesced;
    private final LongAdder writeErrors;
    private final LongAdder verifiedLarge;
    private final MemorySegment header;
    /** For a large segment written with its checksum partial: its {@link VnetHeader}, then a copy of its IP and TCP headers. */
    private final MemorySegment partial;
    /** Made with the first segment held: a device that never receives TCP holds no 64 KiB for it. */
    private MemorySegment held;
    /** Octets held (0: nothing). */
    private int length;
    private int ipLength;
    private int headers;
    private int mss;
    private int segments;
    private int nextSequence;
    private int nextId;

    /**
     * Counts merges ({@code coalesced}, of {@code segmentsCoalesced} segments), large segments
     * written with their checksum verified ({@code verifiedLarge}) and writes the device refused.
     */
    ReceiveCoalescing(Device device, LongAdder coalesced, LongAdder segmentsCoalesced, LongAdder verifiedLarge,
                      LongAdder writeErrors) {
        this.device = device;
        this.coalesced = coalesced;
        this.segmentsCoalesced = segmentsCoalesced;
        this.verifiedLarge = verifiedLarge;
        this.writeErrors = writeErrors;
        Arena arena = Arena.ofAuto();
        this.header = arena.allocate(VnetHeader.LENGTH, 8);
        this.partial = arena.allocate(16 + HEADERS_CAPACITY, 8);
    }

    /**
     * A frame from the link: merged into what is held, held, or written (after what is held).
     *
     * @param address the packet's native address ({@code packet} at {@code offset})
     * @return whether the device took what was written (true when the frame is held)
     */
    synchronized boolean receive(MemorySegment packet, long offset, int n, long address) {
        int ip = tcpAfter(packet, offset, n);
        if (ip > 0 && length > 0 && fits(packet, offset, n, ip) && checksumOk(packet, offset, n, ip)) {
            append(packet, offset, n);
            return true;
        }
        flush();
        if (ip > 0 && startable(packet, offset, n, ip) && roomForAnother(packet, offset, n, ip)
                && checksumOk(packet, offset, n, ip)) {
            hold(packet, offset, n, ip);
            return true;
        }
        if (ip > 0 && hasData(packet, offset, n, ip) && !roomForAnother(packet, offset, n, ip)
                && checksumOk(packet, offset, n, ip)) {
            return verified(packet, offset, n, ip, address);
        }
        return write(0, address, n);
    }

    /**
     * A large segment whose checksum was verified: written with the checksum partial
     * (VIRTIO_NET_HDR_F_NEEDS_CSUM, the field holding the pseudo-header's sum, as in {@link #flush()}),
     * which the receiving kernel takes as good (CHECKSUM_PARTIAL, as from veth) and completes only
     * if it forwards the packet. VIRTIO_NET_HDR_F_DATA_VALID would leave the packet as it is, but a
     * TUN device ignores it on write (Linux 6.18: the kernel dropped such a UDP datagram with a
     * wrong checksum and counted UdpInCsumErrors).
     */
    private boolean verified(MemorySegment p, long at, int n, int ip, long address) {
        int headersLength = ip + tcpHeaderLength(p, at, ip);
        MemorySegment.copy(p, at, partial, 16, headersLength);
        partial.set(SHORT_BE, 16 + ip + 16, (short) InternetChecksum.fold(pseudoHeaderSum(p, at, n, ip)));
        partial.set(ValueLayout.JAVA_BYTE, 0, (byte) VnetHeader.NEEDS_CHECKSUM);
        partial.set(ValueLayout.JAVA_BYTE, 1, (byte) VnetHeader.GSO_NONE);
        partial.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2, (short) headersLength);
        partial.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) 0);
        partial.set(ValueLayout.JAVA_SHORT_UNALIGNED, 6, (short) ip);
        partial.set(ValueLayout.JAVA_SHORT_UNALIGNED, 8, (short) 16);
        if (device.write(partial.address(), partial.address() + 16, headersLength, address + headersLength,
                n - headersLength)) {
            verifiedLarge.increment();
            return true;
        }
        writeErrors.increment();
        return false;
    }

    /** Writes what is held: as it came when one segment, else as one segment with its GSO header. */
    synchronized void flush() {
        if (length == 0) {
            return;
        }
        int n = length;
        length = 0;
        if (segments == 1) {
            write(0, held.address(), n);
            return;
        }
        int payloadLength = n - ipLength;
        long pseudo;
        if (ipLength == 20) {
            held.set(SHORT_BE, 2, (short) n);
            held.set(SHORT_BE, 10, (short) 0);
            Segmentation.storeChecksum(held, 10, InternetChecksum.sum(held, 0, 20));
            pseudo = Segmentation.TCP + payloadLength + InternetChecksum.sum(held, 12, 8);
        } else {
            held.set(SHORT_BE, 4, (short) payloadLength);
            pseudo = Segmentation.TCP + payloadLength + InternetChecksum.sum(held, 8, 32);
        }
        // Checksum partial (VIRTIO_NET_HDR_F_NEEDS_CSUM): the field holds the pseudo-header's sum;
        // each segment's checksum was verified when it came.
        held.set(SHORT_BE, ipLength + 16, (short) InternetChecksum.fold(pseudo));
        header.set(ValueLayout.JAVA_BYTE, 0, (byte) VnetHeader.NEEDS_CHECKSUM);
        header.set(ValueLayout.JAVA_BYTE, 1, (byte) (ipLength == 20 ? VnetHeader.GSO_TCPV4 : VnetHeader.GSO_TCPV6));
        header.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2, (short) headers);
        header.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) mss);
        header.set(ValueLayout.JAVA_SHORT_UNALIGNED, 6, (short) ipLength);
        header.set(ValueLayout.JAVA_SHORT_UNALIGNED, 8, (short) 16);
        if (write(header.address(), held.address(), n)) {
            coalesced.increment();
            segmentsCoalesced.add(segments);
        }
    }

    private boolean write(long headerAddress, long address, int n) {
        if (device.write(headerAddress, address, n)) {
            return true;
        }
        writeErrors.increment();
        return false;
    }

    /** The IP header length when the packet is TCP this can merge (IPv4 without options and not a fragment, or IPv6), else 0. */
    private static int tcpAfter(MemorySegment p, long at, int n) {
        if (n < 40) {
            return 0;
        }
        int first = Byte.toUnsignedInt(p.get(ValueLayout.JAVA_BYTE, at));
        if (first == 0x45) {
            boolean fragment = (p.get(SHORT_BE, at + 6) & 0x3FFF) != 0; // MF or an offset
            return !fragment && p.get(ValueLayout.JAVA_BYTE, at + 9) == Segmentation.TCP
                    && Short.toUnsignedInt(p.get(SHORT_BE, at + 2)) == n ? 20 : 0;
        }
        if ((first >>> 4) == 6 && n >= 60 && p.get(ValueLayout.JAVA_BYTE, at + 6) == Segmentation.TCP
                && Short.toUnsignedInt(p.get(SHORT_BE, at + 4)) == n - 40) {
            return 40;
        }
        return 0;
    }

    private static int tcpHeaderLength(MemorySegment p, long at, int ip) {
        return ((p.get(ValueLayout.JAVA_BYTE, at + ip + 12) >>> 4) & 0xF) * 4;
    }

    private static int flags(MemorySegment p, long at, int ip) {
        return Byte.toUnsignedInt(p.get(ValueLayout.JAVA_BYTE, at + ip + 13));
    }

    /** Whether a segment can start a merge: data, ACK only, headers that fit. */
    private static boolean startable(MemorySegment p, long at, int n, int ip) {
        int tcp = tcpHeaderLength(p, at, ip);
        return tcp >= 20 && ip + tcp < n && flags(p, at, ip) == ACK;
    }

    /**
     * Whether a second segment as large as this one fits behind it in 64 KiB. One that does not
     * (connected mode's segments of up to 65 520 octets) is written at once as it came: holding it
     * would cost a copy and a checksum pass for a merge that cannot happen.
     */
    private static boolean roomForAnother(MemorySegment p, long at, int n, int ip) {
        int payload = n - ip - tcpHeaderLength(p, at, ip);
        return n + payload <= CAPACITY;
    }

    /** Whether the TCP header fits in the packet and something follows it. */
    private static boolean hasData(MemorySegment p, long at, int n, int ip) {
        int tcp = tcpHeaderLength(p, at, ip);
        return tcp >= 20 && ip + tcp < n;
    }

    private static boolean checksumOk(MemorySegment p, long at, int n, int ip) {
        return InternetChecksum.fold(pseudoHeaderSum(p, at, n, ip) + InternetChecksum.sum(p, at + ip, n - ip)) == 0xFFFF;
    }

    /** The unfolded sum of the TCP pseudo-header (RFC 9293 §3.1; RFC 8200 §8.1): addresses, protocol, TCP length. */
    private static long pseudoHeaderSum(MemorySegment p, long at, int n, int ip) {
        return ip == 20 ? Segmentation.TCP + n - ip + InternetChecksum.sum(p, at + 12, 8)
                : Segmentation.TCP + n - ip + InternetChecksum.sum(p, at + 8, 32);
    }

    private void hold(MemorySegment p, long at, int n, int ip) {
        if (held == null) {
            held = Arena.ofAuto().allocate(CAPACITY, 8);
        }
        MemorySegment.copy(p, at, held, 0, n);
        length = n;
        ipLength = ip;
        headers = ip + tcpHeaderLength(p, at, ip);
        mss = n - headers;
        segments = 1;
        nextSequence = p.get(INT_BE, at + ip + 4) + mss;
        nextId = ip == 20 ? Short.toUnsignedInt(p.get(SHORT_BE, at + 4)) + 1 : 0;
    }

    /** Whether the segment continues what is held (see the class comment). */
    private boolean fits(MemorySegment p, long at, int n, int ip) {
        if (ip != ipLength || n - headers <= 0 || n - headers > mss || length + n - headers > CAPACITY) {
            return false; // another family, no data, larger than the first, or too long
        }
        if (tcpHeaderLength(p, at, ip) != headers - ip) {
            return false;
        }
        int f = flags(p, at, ip);
        if (f != ACK && f != (ACK | PSH)) {
            return false;
        }
        if (ip == 20) {
            if (!sameShort(p, at, 0) || !sameInt(p, at, 6) || !sameLong(p, at, 12)) {
                return false;
            }
            boolean dontFragment = (p.get(ValueLayout.JAVA_BYTE, at + 6) & 0x40) != 0;
            if (!dontFragment && Short.toUnsignedInt(p.get(SHORT_BE, at + 4)) != (nextId & 0xFFFF)) {
                return false;
            }
        } else if (!sameInt(p, at, 0) || !sameShort(p, at, 6) || !sameLong(p, at, 8) || !sameLong(p, at, 16)
                || !sameLong(p, at, 24) || !sameLong(p, at, 32)) {
            return false;
        }
        // Ports; acknowledgment; data offset; window and urgent pointer; options.
        return sameInt(p, at, ip) && p.get(INT_BE, at + ip + 4) == nextSequence && sameInt(p, at, ip + 8)
                && p.get(ValueLayout.JAVA_BYTE, at + ip + 12) == held.get(ValueLayout.JAVA_BYTE, ip + 12)
                && sameShort(p, at, ip + 14) && same(p, at, ip + 18, headers - ip - 18);
    }

    /**
     * Whether the two octets at {@code from} are those held there. Fixed fields are compared a load
     * at a time: a call of {@link MemorySegment#mismatch} per field cost more than the rest of a merge.
     */
    private boolean sameShort(MemorySegment p, long at, int from) {
        return p.get(ValueLayout.JAVA_SHORT_UNALIGNED, at + from) == held.get(ValueLayout.JAVA_SHORT_UNALIGNED, from);
    }

    private boolean sameInt(MemorySegment p, long at, int from) {
        return p.get(ValueLayout.JAVA_INT_UNALIGNED, at + from) == held.get(ValueLayout.JAVA_INT_UNALIGNED, from);
    }

    private boolean sameLong(MemorySegment p, long at, int from) {
        return p.get(ValueLayout.JAVA_LONG_UNALIGNED, at + from) == held.get(ValueLayout.JAVA_LONG_UNALIGNED, from);
    }

    /** Whether {@code count} octets from {@code from} are those held there (the TCP options: of any length). */
    private boolean same(MemorySegment p, long at, int from, int count) {
        return MemorySegment.mismatch(p, at + from, at + from + count, held, from, from + count) < 0;
    }

    private void append(MemorySegment p, long at, int n) {
        int payload = n - headers;
        MemorySegment.copy(p, at + headers, held, length, payload);
        length += payload;
        segments++;
        nextSequence += payload;
        nextId++;
        int f = flags(p, at, ipLength);
        if ((f & PSH) != 0) {
            held.set(ValueLayout.JAVA_BYTE, ipLength + 13, (byte) (ACK | PSH));
        }
        if ((f & PSH) != 0 || payload < mss) {
            flush(); // the sender pushed, or a short segment: nothing more follows it in a merge
        }
    }
}
