package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segmentation offload and checksum completion, checked by tshark (an independent implementation
 * of IPv4, IPv6, TCP and UDP with checksum validation on): the segments' and datagrams' checksums,
 * lengths, sequence numbers, identifications and flags; and the payload reassembled from them.
 */
class SegmentationTest {
    private static final String TSHARK = "/usr/bin/tshark";
    private static final int FIN = 0x01;
    private static final int PSH = 0x08;
    private static final int ACK = 0x10;
    private static final int CWR = 0x80;

    @TempDir
    Path dir;

    /** An IPv4 packet: 20-octet header, TCP with the timestamp option (32-octet header), the payload. */
    static byte[] ipv4Tcp(byte[] payload, int sequence, int flags, int id) {
        ByteBuffer b = ByteBuffer.allocate(20 + 32 + payload.length);
        b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putShort((short) id).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 6).putShort((short) 0x1234) // checksum left stale, as the kernel's GSO one may be
                .put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2});
        tcp(b, sequence, flags);
        b.put(payload);
        return b.array();
    }

    static byte[] ipv6Tcp(byte[] payload, int sequence, int flags) {
        ByteBuffer b = ByteBuffer.allocate(40 + 32 + payload.length);
        b.putInt(0x6000_0000).putShort((short) (32 + payload.length)).put((byte) 6).put((byte) 64);
        b.putLong(0xfd00_0000_0000_0000L).putLong(1).putLong(0xfd00_0000_0000_0000L).putLong(2);
        tcp(b, sequence, flags);
        b.put(payload);
        return b.array();
    }

    private static void tcp(ByteBuffer b, int sequence, int flags) {
        b.putShort((short) 40000).putShort((short) 5001).putInt(sequence).putInt(0x01020304)
                .put((byte) (8 << 4)).put((byte) flags).putShort((short) 501).putShort((short) 0x5555).putShort((short) 0)
                .put(new byte[] {1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9}); // NOP NOP timestamps
    }

    static byte[] payload(int length) {
        byte[] p = new byte[length];
        for (int i = 0; i < length; i++) {
            p[i] = (byte) (i * 7 + (i >>> 8));
        }
        return p;
    }

    /** Runs the segmentation and returns the segments made. */
    static List<byte[]> segment(byte[] packet, int mss) {
        Arena arena = Arena.ofAuto();
        MemorySegment in = arena.allocate(packet.length);
        MemorySegment.copy(packet, 0, in, ValueLayout.JAVA_BYTE, 0, packet.length);
        MemorySegment out = arena.allocate(65536);
        List<byte[]> segments = new ArrayList<>();
        int count = Segmentation.tcp(in, packet.length, mss, out,
                (buffer, offset, length) -> segments.add(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(segments.size(), count);
        return segments;
    }

    @Test
    void anIpv4SegmentIsCutAtTheMssWithHeadersAndChecksumsTsharkAccepts() throws Exception {
        byte[] data = payload(5000);
        List<byte[]> segments = segment(ipv4Tcp(data, 0xFFFF_F000, ACK | PSH | FIN | CWR, 0xFFFE), 1448);
        assertEquals(4, segments.size());
        List<String[]> rows = tshark(segments, "ip.len", "ip.id", "ip.checksum.status", "tcp.seq_raw", "tcp.len",
                "tcp.flags", "tcp.checksum.status", "_ws.expert.severity");
        int[] lengths = {1448, 1448, 1448, 656};
        for (int i = 0; i < 4; i++) {
            String[] r = rows.get(i);
            assertEquals(Integer.toString(20 + 32 + lengths[i]), r[0], "ip.len of segment " + i);
            assertEquals(String.format("0x%04x", (0xFFFE + i) & 0xFFFF), r[1], "ip.id of segment " + i);
            assertEquals("1", r[2], "IPv4 header checksum good, segment " + i);
            assertEquals(Long.toString((0xFFFF_F000L + 1448L * i) & 0xFFFF_FFFFL), r[3], "sequence of segment " + i);
            assertEquals(Integer.toString(lengths[i]), r[4]);
            int expected = ACK | (i == 0 ? CWR : 0) | (i == 3 ? PSH | FIN : 0);
            assertEquals(String.format("0x%04x", expected), r[5], "flags of segment " + i);
            assertEquals("1", r[6], "TCP checksum good, segment " + i);
        }
        assertArrayEquals(data, reassemble(segments, 20 + 32));
    }

    @Test
    void anIpv6SegmentIsCutWithPayloadLengthsAndChecksumsTsharkAccepts() throws Exception {
        byte[] data = payload(4001);
        List<byte[]> segments = segment(ipv6Tcp(data, 1000, ACK | PSH), 2000);
        assertEquals(3, segments.size());
        List<String[]> rows = tshark(segments, "ipv6.plen", "tcp.seq_raw", "tcp.len", "tcp.flags", "tcp.checksum.status");
        int[] lengths = {2000, 2000, 1};
        for (int i = 0; i < 3; i++) {
            String[] r = rows.get(i);
            assertEquals(Integer.toString(32 + lengths[i]), r[0]);
            assertEquals(Long.toString(1000 + 2000L * i), r[1]);
            assertEquals(Integer.toString(lengths[i]), r[2]);
            assertEquals(String.format("0x%04x", ACK | (i == 2 ? PSH : 0)), r[3]);
            assertEquals("1", r[4], "TCP checksum good, segment " + i);
        }
        assertArrayEquals(data, reassemble(segments, 40 + 32));
    }

    /**
     * The largest headers (IPv4 with 40 octets of options, TCP with 40) cut at the smallest segment
     * size: each segment's headers, written where the previous segment's payload was, reach back
     * over more than that payload.
     */
    @Test
    void headersLongerThanTheSegmentsAreCutRightToo() throws Exception {
        byte[] data = payload(500);
        ByteBuffer b = ByteBuffer.allocate(60 + 60 + data.length);
        b.put((byte) 0x4F).put((byte) 0).putShort((short) b.capacity()).putShort((short) 7).putShort((short) 0x4000)
                .put((byte) 64).put((byte) 6).putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2});
        b.put(new byte[40]); // IPv4 options: end of list, then padding
        b.putShort((short) 40000).putShort((short) 5001).putInt(77).putInt(0x01020304)
                .put((byte) (15 << 4)).put((byte) (ACK | PSH)).putShort((short) 501).putShort((short) 0).putShort((short) 0);
        for (int i = 0; i < 28; i++) {
            b.put((byte) 1); // NOP
        }
        b.put(new byte[] {8, 10, 0, 0, 0, 7, 0, 0, 0, 9}).put((byte) 1).put((byte) 1); // timestamps, NOP NOP
        b.put(data);
        List<byte[]> segments = segment(b.array(), Segmentation.MIN_TCP_SEGMENT);
        assertEquals(6, segments.size());
        List<String[]> rows = tshark(segments, "ip.checksum.status", "tcp.seq_raw", "tcp.len", "tcp.checksum.status");
        for (int i = 0; i < 6; i++) {
            String[] r = rows.get(i);
            assertEquals("1", r[0], "IPv4 header checksum good, segment " + i);
            assertEquals(Integer.toString(77 + 88 * i), r[1], "sequence of segment " + i);
            assertEquals(Integer.toString(i < 5 ? 88 : 500 - 5 * 88), r[2], "length of segment " + i);
            assertEquals("1", r[3], "TCP checksum good, segment " + i);
        }
        assertArrayEquals(data, reassemble(segments, 60 + 60));
    }

    @Test
    void aSegmentNoLargerThanTheMssStaysOneWithItsChecksumMade() throws Exception {
        List<byte[]> segments = segment(ipv4Tcp(payload(100), 5, ACK | FIN, 1), 1448);
        assertEquals(1, segments.size());
        String[] r = tshark(segments, "tcp.flags", "tcp.checksum.status", "ip.checksum.status").get(0);
        assertEquals(String.format("0x%04x", ACK | FIN), r[0]);
        assertEquals("1", r[1]);
        assertEquals("1", r[2]);
    }

    static byte[] udp(boolean ipv6, byte[] payload) {
        int ip = ipv6 ? 40 : 20;
        ByteBuffer b = ByteBuffer.allocate(ip + 8 + payload.length);
        if (ipv6) {
            b.putInt(0x6000_0000).putShort((short) (8 + payload.length)).put((byte) 17).put((byte) 64);
            b.putLong(0xfd00_0000_0000_0000L).putLong(1).putLong(0xfd00_0000_0000_0000L).putLong(2);
        } else {
            b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putShort((short) 0x0100).putShort((short) 0)
                    .put((byte) 64).put((byte) 17).putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2});
        }
        b.putShort((short) 4433).putShort((short) 9999).putShort((short) (8 + payload.length)).putShort((short) 0x7777);
        b.put(payload);
        return b.array();
    }

    static List<byte[]> udpSegments(byte[] packet, int size) {
        MemorySegment out = Arena.ofAuto().allocate(65536);
        List<byte[]> datagrams = new ArrayList<>();
        int count = Segmentation.udp(MemorySegment.ofArray(packet), packet.length, size, out,
                (buffer, offset, length) -> datagrams.add(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(datagrams.size(), count);
        return datagrams;
    }

    /** An application's UDP_SEGMENT send of 3 000 octets in 1 200-octet datagrams, IPv4 and IPv6. */
    @Test
    void aUdpSegmentSendBecomesDatagramsWithTheirOwnLengthsAndChecksumsTsharkAccepts() throws Exception {
        byte[] data = payload(3000);
        int[] sizes = {1200, 1200, 600};
        List<byte[]> four = udpSegments(udp(false, data), 1200);
        List<String[]> rows = tshark(four, "ip.len", "ip.id", "ip.checksum.status", "udp.length", "udp.checksum.status",
                "udp.srcport", "udp.dstport");
        for (int i = 0; i < 3; i++) {
            String[] r = rows.get(i);
            assertEquals(Integer.toString(28 + sizes[i]), r[0]);
            assertEquals(String.format("0x%04x", 0x0100 + i), r[1]);
            assertEquals("1", r[2], "IPv4 header checksum good, datagram " + i);
            assertEquals(Integer.toString(8 + sizes[i]), r[3]);
            assertEquals("1", r[4], "UDP checksum good, datagram " + i);
            assertEquals("4433", r[5]);
            assertEquals("9999", r[6]);
        }
        assertArrayEquals(data, reassemble(four, 28));
        List<byte[]> six = udpSegments(udp(true, data), 1200);
        rows = tshark(six, "ipv6.plen", "udp.length", "udp.checksum.status");
        for (int i = 0; i < 3; i++) {
            assertEquals(Integer.toString(8 + sizes[i]), rows.get(i)[0]);
            assertEquals(Integer.toString(8 + sizes[i]), rows.get(i)[1]);
            assertEquals("1", rows.get(i)[2], "UDP checksum good, IPv6 datagram " + i);
        }
        assertArrayEquals(data, reassemble(six, 48));
        byte[] tcp = ipv4Tcp(data, 0, ACK, 0);
        assertEquals(-1, Segmentation.udp(MemorySegment.ofArray(tcp), tcp.length, 1200, Arena.ofAuto().allocate(65536),
                (b, o, l) -> fail("TCP is not cut as UDP")));
    }

    @Test
    void whatIsNotTcpOverIpIsRefused() {
        MemorySegment out = Arena.ofAuto().allocate(65536);
        byte[] udp = ipv4Tcp(payload(3000), 0, ACK, 0);
        udp[9] = 17;
        for (byte[] p : new byte[][] {udp, new byte[10], ipv4Tcp(payload(10), 0, ACK, 0)}) {
            MemorySegment in = MemorySegment.ofArray(p);
            int length = p.length == 10 ? 10 : p.length;
            int mss = p == udp || p.length == 10 ? 1000 : 0;
            assertEquals(-1, Segmentation.tcp(in, length, mss, out, (b, o, l) -> fail("no segment expected")));
        }
        byte[] shortHeader = ipv4Tcp(payload(0), 0, ACK, 0);
        assertEquals(-1, Segmentation.tcp(MemorySegment.ofArray(shortHeader), 30, 1000, out,
                (b, o, l) -> fail("no segment expected")));
    }

    /**
     * A checksum left to the device: the field holds the pseudo-header's sum (as Linux's
     * {@code udp4_hwcsum} leaves it, folded, not complemented) and the completion makes the datagram
     * one that tshark finds correct.
     */
    @Test
    void aChecksumLeftToTheDeviceIsCompleted() throws Exception {
        byte[] data = payload(333);
        ByteBuffer b = ByteBuffer.allocate(20 + 8 + data.length);
        b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putShort((short) 7).putShort((short) 0)
                .put((byte) 64).put((byte) 17).putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {10, 0, 0, 2});
        b.putShort((short) 5353).putShort((short) 9).putShort((short) (8 + data.length));
        // The pseudo-header's sum, computed here by hand: addresses, protocol, UDP length.
        long pseudo = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 8 + data.length;
        int folded = (int) ((pseudo & 0xFFFF) + (pseudo >>> 16));
        b.putShort((short) folded).put(data);
        byte[] packet = b.array();
        ipv4HeaderChecksum(packet);
        MemorySegment s = MemorySegment.ofArray(packet);
        assertTrue(Segmentation.completeChecksum(s, packet.length, 20, 6));
        String[] r = tshark(List.of(packet), "udp.checksum.status", "udp.length").get(0);
        assertEquals("1", r[0], "UDP checksum good");
        assertEquals(Integer.toString(8 + data.length), r[1]);
        assertTrue(!Segmentation.completeChecksum(s, packet.length, 20, packet.length), "an offset outside is refused");
    }

    private static void ipv4HeaderChecksum(byte[] p) {
        long sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((p[i] & 0xFF) << 8) | (p[i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int c = ~(int) sum & 0xFFFF;
        p[10] = (byte) (c >>> 8);
        p[11] = (byte) c;
    }

    private static byte[] reassemble(List<byte[]> segments, int headers) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] s : segments) {
            all.write(s, headers, s.length - headers);
        }
        return all.toByteArray();
    }

    /** The packets as a pcap of raw IP (LINKTYPE_RAW), read by tshark with checksum validation on: one row per packet. */
    private List<String[]> tshark(List<byte[]> packets, String... fields) throws Exception {
        if (!Files.isExecutable(Path.of(TSHARK))) {
            fail("tshark is required for this test and was not found at " + TSHARK
                    + ": install Wireshark's command-line tool (Debian package 'tshark'); ./ipoib test does");
        }
        ByteArrayOutputStream pcap = new ByteArrayOutputStream();
        ByteBuffer global = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        global.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(101);
        pcap.write(global.array());
        int second = 1;
        for (byte[] p : packets) {
            ByteBuffer record = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            record.putInt(second++).putInt(0).putInt(p.length).putInt(p.length);
            pcap.write(record.array());
            pcap.write(p);
        }
        Path file = dir.resolve("segments.pcap");
        Files.write(file, pcap.toByteArray());
        List<String> command = new ArrayList<>(List.of(TSHARK, "-r", file.toString(), "-o", "ip.check_checksum:TRUE",
                "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "tcp.analyze_sequence_numbers:FALSE",
                "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"));
        for (String f : fields) {
            command.add("-e");
            command.add(f);
        }
        Path out = dir.resolve("tshark.out");
        Path err = dir.resolve("tshark.err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("WIRESHARK_CONFIG_DIR", Files.createDirectories(dir.resolve("ws")).toString());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("tshark did not finish within 120 s");
        }
        assertEquals(0, p.exitValue(), Files.readString(err));
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            rows.add(line.split("\t", -1));
        }
        assertEquals(packets.size(), rows.size(), String.join("\n", Files.readAllLines(out)));
        return rows;
    }
}
