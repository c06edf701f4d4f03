package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Receive coalescing: which segments merge (GRO's rules), what is written to the device (the
 * merged segment with its GSO header, or each frame as it came), and in which order. Segments
 * are built here with checksums computed by this test's own RFC 1071 loop; the merged segment's
 * checksum, completed as the kernel completes a partial one, is checked by tshark in
 * {@link SegmentationTest#aChecksumLeftToTheDeviceIsCompleted()}'s way.
 */
class ReceiveCoalescingTest {
    private static final int ACK = 0x10;
    private static final int PSH = 0x08;
    private static final int MSS = 1448;

    /** What the device got: its header (null when it asks for nothing) and the packet. */
    record Written(byte[] header, byte[] packet) {}

    final List<Written> written = new ArrayList<>();
    final LongAdder merged = new LongAdder();
    final LongAdder segments = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder verified = new LongAdder();
    final ReceiveCoalescing coalescing = new ReceiveCoalescing(new ReceiveCoalescing.Device() {
        @Override
        public boolean write(long header, long address, int length) {
            written.add(new Written(header(header), bytes(address, length)));
            return true;
        }

        @Override
        public boolean write(long header, long headers, int headersLength, long rest, int restLength) {
            ByteArrayOutputStream p = new ByteArrayOutputStream();
            p.writeBytes(bytes(headers, headersLength));
            p.writeBytes(bytes(rest, restLength));
            written.add(new Written(header(header), p.toByteArray()));
            return true;
        }
    }, merged, segments, verified, errors);

    static byte[] header(long address) {
        return address == 0 ? null : bytes(address, VnetHeader.LENGTH);
    }

    static byte[] bytes(long address, int length) {
        return MemorySegment.ofAddress(address).reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
    }

    static byte[] segment(int sequence, int id, int flags, byte[] payload, int port) {
        ByteBuffer b = ByteBuffer.allocate(20 + 32 + payload.length);
        b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putShort((short) id).putShort((short) 0)
                .put((byte) 64).put((byte) 6).putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2});
        b.putShort((short) port).putShort((short) 5001).putInt(sequence).putInt(77).put((byte) (8 << 4)).put((byte) flags)
                .putShort((short) 501).putShort((short) 0).putShort((short) 0)
                .put(new byte[] {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9});
        b.put(payload);
        byte[] p = b.array();
        store(p, 10, sum(p, 0, 20, 0));
        long pseudo = sum(p, 12, 8, 6 + 32 + payload.length);
        store(p, 36, sum(p, 20, p.length - 20, pseudo));
        return p;
    }

    /** An IPv6 TCP segment (20-octet TCP header) from ULA ::1 to ULA ::2 with its checksum. */
    static byte[] segment6(byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(40 + 20 + payload.length);
        b.putInt(0x6000_0000).putShort((short) (20 + payload.length)).put((byte) 6).put((byte) 64)
                .put(Ipv6Packets.address("fd000000000000000000000000000001")).put(Ipv6Packets.ULA_2);
        b.putShort((short) 40000).putShort((short) 5001).putInt(1).putInt(77).put((byte) (5 << 4)).put((byte) ACK)
                .putShort((short) 501).putShort((short) 0).putShort((short) 0);
        b.put(payload);
        byte[] p = b.array();
        store(p, 56, sum(p, 40, p.length - 40, sum(p, 8, 32, 6 + 20 + payload.length)));
        return p;
    }

    static long sum(byte[] p, int from, int length, long sum) {
        for (int i = 0; i < length; i += 2) {
            sum += ((p[from + i] & 0xFF) << 8) | (i + 1 < length ? p[from + i + 1] & 0xFF : 0);
        }
        return sum;
    }

    static void store(byte[] p, int at, long sum) {
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int c = ~(int) sum & 0xFFFF;
        p[at] = (byte) (c >>> 8);
        p[at + 1] = (byte) c;
    }

    void receive(byte[] packet) {
        MemorySegment native_ = java.lang.foreign.Arena.ofAuto().allocate(packet.length);
        MemorySegment.copy(packet, 0, native_, ValueLayout.JAVA_BYTE, 0, packet.length);
        coalescing.receive(native_, 0, packet.length, native_.address());
    }

    static byte[] data(int length, int seed) {
        byte[] d = new byte[length];
        for (int i = 0; i < length; i++) {
            d[i] = (byte) (i * 31 + seed);
        }
        return d;
    }

    static int u16(byte[] p, int at) {
        return ((p[at] & 0xFF) << 8) | (p[at + 1] & 0xFF);
    }

    static int le16(byte[] h, int at) {
        return ByteBuffer.wrap(h, at, 2).order(ByteOrder.nativeOrder()).getShort() & 0xFFFF;
    }

    @Test
    void inOrderSegmentsOfOneFlowBecomeOneWithAGsoHeaderAndAPartialChecksum() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        int[] sizes = {MSS, MSS, MSS, 656};
        int sequence = 1000;
        for (int i = 0; i < sizes.length; i++) {
            byte[] d = data(sizes[i], i);
            all.writeBytes(d);
            receive(segment(sequence, 40 + i, ACK, d, 40000));
            sequence += sizes[i];
        }
        // The short last segment ends the merge at once.
        assertEquals(1, written.size());
        Written w = written.get(0);
        byte[] p = w.packet();
        assertEquals(20 + 32 + 5000, p.length);
        assertEquals(p.length, u16(p, 2), "IPv4 total length");
        assertEquals(40, u16(p, 4), "the first segment's identification");
        assertEquals(1000, ByteBuffer.wrap(p, 24, 4).getInt(), "the first segment's sequence number");
        assertArrayEquals(all.toByteArray(), java.util.Arrays.copyOfRange(p, 52, p.length));
        byte[] h = w.header();
        assertEquals(VnetHeader.NEEDS_CHECKSUM, h[0]);
        assertEquals(VnetHeader.GSO_TCPV4, h[1]);
        assertEquals(52, le16(h, 2), "header length");
        assertEquals(MSS, le16(h, 4), "GSO size: the first segment's payload");
        assertEquals(20, le16(h, 6), "checksum start: the TCP header");
        assertEquals(16, le16(h, 8), "checksum offset: TCP's checksum field");
        // IPv4 header checksum valid; the TCP field holds the pseudo-header's sum, which completed
        // over the merged segment gives a correct checksum.
        long ipSum = sum(p, 0, 20, 0);
        while ((ipSum >>> 16) != 0) {
            ipSum = (ipSum & 0xFFFF) + (ipSum >>> 16);
        }
        assertEquals(0xFFFF, ipSum);
        MemorySegment s = MemorySegment.ofArray(p);
        Segmentation.completeChecksum(s, p.length, 20, 16);
        long tcpSum = sum(p, 20, p.length - 20, sum(p, 12, 8, 6 + p.length - 20));
        while ((tcpSum >>> 16) != 0) {
            tcpSum = (tcpSum & 0xFFFF) + (tcpSum >>> 16);
        }
        assertEquals(0xFFFF, tcpSum);
        assertEquals(1, merged.sum());
        assertEquals(4, segments.sum());
    }

    @Test
    void whatIsHeldWaitsForTheEndOfThePollAndASingleSegmentGoesOutAsItCame() {
        byte[] one = segment(1, 1, ACK, data(MSS, 1), 40000);
        byte[] two = segment(1 + MSS, 2, ACK, data(MSS, 2), 40000);
        receive(one);
        receive(two);
        assertEquals(0, written.size(), "held until the poll ends");
        coalescing.flush();
        assertEquals(1, written.size());
        assertEquals(20 + 32 + 2 * MSS, written.get(0).packet().length);
        byte[] three = segment(1 + 2 * MSS, 3, ACK, data(MSS, 3), 40000);
        receive(three);
        coalescing.flush();
        assertEquals(2, written.size());
        assertNull(written.get(1).header(), "one segment: a header that asks for nothing");
        assertArrayEquals(three, written.get(1).packet());
        coalescing.flush();
        assertEquals(2, written.size(), "nothing held, nothing written");
    }

    @Test
    void aGapABadChecksumAnotherFlowAPushAndPureAcksEndAMergeInOrder() {
        byte[] a1 = segment(100, 1, ACK, data(MSS, 1), 40000);
        byte[] gap = segment(100 + 2 * MSS, 2, ACK, data(MSS, 2), 40000); // one segment missing
        byte[] bad = segment(100 + 3 * MSS, 3, ACK, data(MSS, 3), 40000);
        bad[60] ^= 1; // payload corrupted after the checksum was made
        byte[] other = segment(5, 9, ACK, data(MSS, 4), 40001);
        byte[] pure = segment(6, 10, ACK, new byte[0], 40001);
        byte[] pushed1 = segment(7000, 20, ACK, data(MSS, 5), 40002);
        byte[] pushed2 = segment(7000 + MSS, 21, ACK | PSH, data(MSS, 6), 40002);
        for (byte[] p : new byte[][] {a1, gap, bad, other, pure, pushed1, pushed2}) {
            receive(p);
        }
        // a1 (held) -> gap flushes it, gap held -> bad flushes gap and goes as it came -> other held
        // -> the pure ACK flushes other and goes as it came -> pushed1 held, pushed2 merged and flushed.
        List<byte[]> expected = List.of(a1, gap, bad, other, pure);
        assertEquals(6, written.size());
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), written.get(i).packet(), "write " + i);
            assertNull(written.get(i).header());
        }
        byte[] pushed = written.get(5).packet();
        assertEquals(20 + 32 + 2 * MSS, pushed.length);
        assertEquals(ACK | PSH, pushed[33] & 0xFF, "the push is kept on the merged segment");
        assertEquals(0, errors.sum());
    }

    @Test
    void aSegmentWithNoRoomForASecondAsLargeGoesAtOnceWithItsChecksumPartial() {
        int large = 65520 - 20 - 32; // connected mode's MTU
        byte[] one = segment(1, 1, ACK | PSH, data(large, 1), 40000);
        byte[] half = segment(1, 1, ACK, data(65535 / 2 - 52, 2), 40001);
        receive(one);
        assertEquals(1, written.size(), "written without waiting for the end of the poll");
        byte[] h = written.get(0).header();
        assertEquals(VnetHeader.NEEDS_CHECKSUM, h[0], "the checksum left partial: the kernel does not verify it");
        assertEquals(VnetHeader.GSO_NONE, h[1]);
        assertEquals(52, le16(h, 2), "header length: IP and TCP headers");
        assertEquals(20, le16(h, 6), "checksum start: the TCP header");
        assertEquals(16, le16(h, 8), "checksum offset: TCP's checksum field");
        byte[] p = written.get(0).packet();
        assertEquals(one.length, p.length);
        // The field holds the pseudo-header's sum (this test's RFC 1071 loop); completed as the
        // kernel completes a partial checksum, the packet is the one that came.
        long pseudo = sum(one, 12, 8, 6 + one.length - 20);
        while ((pseudo >>> 16) != 0) {
            pseudo = (pseudo & 0xFFFF) + (pseudo >>> 16);
        }
        assertEquals(pseudo, u16(p, 36));
        Segmentation.completeChecksum(MemorySegment.ofArray(p), p.length, 20, 16);
        assertArrayEquals(one, p);
        assertEquals(1, verified.sum());
        receive(half);
        assertEquals(1, written.size(), "a second as large still fits: held");
        coalescing.flush();
        assertEquals(2, written.size());
        assertEquals(0, merged.sum());
    }

    @Test
    void aLargeIpv6SegmentGoesWithItsChecksumPartialAndALargeOneWithABadChecksumAsItCame() {
        byte[] v6 = segment6(data(65000, 3));
        byte[] bad = segment(1, 1, ACK, data(65520 - 52, 4), 40000);
        bad[1000] ^= 1; // payload corrupted after the checksum was made
        receive(v6);
        receive(bad);
        assertEquals(2, written.size());
        byte[] h = written.get(0).header();
        assertEquals(VnetHeader.NEEDS_CHECKSUM, h[0]);
        assertEquals(40, le16(h, 6), "checksum start: after the fixed IPv6 header");
        byte[] p = written.get(0).packet();
        Segmentation.completeChecksum(MemorySegment.ofArray(p), p.length, 40, 16);
        assertArrayEquals(v6, p);
        assertNull(written.get(1).header(), "a bad checksum: for the kernel to drop and count");
        assertArrayEquals(bad, written.get(1).packet());
        assertEquals(1, verified.sum());
    }

    @Test
    void whatIsNotTcpGoesAsItCame() {
        byte[] udp = segment(1, 1, ACK, data(100, 1), 40000);
        udp[9] = 17;
        byte[] syn = segment(1, 1, 0x02, data(10, 1), 40000);
        receive(udp);
        receive(syn);
        assertEquals(2, written.size());
        assertArrayEquals(udp, written.get(0).packet());
        assertArrayEquals(syn, written.get(1).packet());
    }
}
