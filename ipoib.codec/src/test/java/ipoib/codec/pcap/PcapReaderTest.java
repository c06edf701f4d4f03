package ipoib.codec.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.iba.Grh;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Classic pcap, tcpdump's default format: files written here octet by octet after the format's
 * description (draft-ietf-opsawg-pcap §4-5) in both byte orders and both resolutions, and files
 * that Wireshark's editcap converts from this project's pcapng; pseudo-headers with junk in the
 * GRH area are told apart, not fatal.
 */
class PcapReaderTest {
    @TempDir
    Path dir;

    /** A classic pcap file: header then records, every field in the given byte order. */
    private static byte[] classic(ByteOrder order, int magic, int linkType, long[][] records, byte[][] data) {
        ByteBuffer b = ByteBuffer.allocate(24 + records.length * 16 + 4096).order(order);
        b.putInt(magic).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(linkType);
        for (int i = 0; i < records.length; i++) {
            b.putInt((int) records[i][0]).putInt((int) records[i][1]).putInt(data[i].length)
                    .putInt((int) records[i][2]).put(data[i]);
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Test
    void littleEndianMicrosecondsAsTcpdumpWritesThemOnX86() throws Exception {
        byte[] file = classic(ByteOrder.LITTLE_ENDIAN, PcapReader.MAGIC_MICROSECONDS, LinkType.IPOIB,
                new long[][] {{1_700_000_000L, 123_456, 60}, {1_700_000_001L, 999_999, 8}},
                new byte[][] {{1, 2, 3}, {4, 5, 6, 7, 8, 9, 10, 11}});
        assertEquals((byte) 0xd4, file[0], "magic written little-endian: d4 c3 b2 a1");
        PcapReader r = new PcapReader(MemorySegment.ofArray(file));
        assertTrue(PcapReader.isPcap(MemorySegment.ofArray(file)));
        assertEquals(LinkType.IPOIB, r.linkType());
        assertFalse(r.bigEndian());
        assertFalse(r.nanosecondTimestamps());
        assertTrue(r.next());
        assertEquals(1_700_000_000_123_456_000L, r.timestampNanos());
        assertEquals(3, r.capturedLength());
        assertEquals(60, r.originalLength());
        assertArrayEquals(new byte[] {1, 2, 3}, r.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertTrue(r.next());
        assertEquals(1_700_000_001_999_999_000L, r.timestampNanos());
        assertArrayEquals(new byte[] {4, 5, 6, 7, 8, 9, 10, 11}, r.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertFalse(r.next());
    }

    @Test
    void bigEndianNanoseconds() throws Exception {
        byte[] file = classic(ByteOrder.BIG_ENDIAN, PcapReader.MAGIC_NANOSECONDS, 197,
                new long[][] {{2, 5, 4}}, new byte[][] {{9, 9, 9, 9}});
        assertArrayEquals(new byte[] {(byte) 0xa1, (byte) 0xb2, 0x3c, 0x4d}, java.util.Arrays.copyOf(file, 4));
        PcapReader r = new PcapReader(MemorySegment.ofArray(file));
        assertTrue(r.bigEndian());
        assertTrue(r.nanosecondTimestamps());
        assertEquals(LinkType.ERF, r.linkType());
        assertTrue(r.next());
        assertEquals(2_000_000_005L, r.timestampNanos());
        assertFalse(r.next());
    }

    @Test
    void malformedFilesNameTheFieldAndOffset() {
        byte[] good = classic(ByteOrder.LITTLE_ENDIAN, PcapReader.MAGIC_MICROSECONDS, LinkType.IPOIB,
                new long[][] {{1, 1, 3}}, new byte[][] {{1, 2, 3}});
        DecodeException e = assertThrows(DecodeException.class,
                () -> new PcapReader(MemorySegment.ofArray(new byte[] {0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0,
                        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})));
        assertTrue(e.getMessage().contains("pcap magic"), e.getMessage());
        assertFalse(PcapReader.isPcap(MemorySegment.ofArray(new byte[] {0x0a, 0x0d, 0x0d, 0x0a})),
                "a pcapng Section Header Block is not classic pcap");
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        DecodeException t = assertThrows(DecodeException.class, () -> {
            PcapReader r = new PcapReader(MemorySegment.ofArray(truncated));
            r.next();
        });
        assertTrue(t.getMessage().contains("pcap captured length"), t.getMessage());
        byte[] shortHeader = java.util.Arrays.copyOf(good, 24 + 10);
        DecodeException h = assertThrows(DecodeException.class, () -> {
            PcapReader r = new PcapReader(MemorySegment.ofArray(shortHeader));
            r.next();
        });
        assertTrue(h.getMessage().contains("pcap record header"), h.getMessage());
    }

    /** Three IPoIB frames: address form, GRH form with the sender's QPN, and junk in the GRH area. */
    private static byte[] pcapngWithThreeFrames(long[] times) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapngWriter w = new PcapngWriter(Channels.newChannel(out))) {
            int ib0 = w.addInterface(LinkType.IPOIB, 0, TimestampResolution.NANOSECONDS, "ib0");
            byte[] frame = {0x08, 0x00, 0, 0, 0x45, 0, 0, 20};
            MemorySegment pseudo = MemorySegment.ofArray(new byte[IpoibPseudoHeader.LENGTH]);
            IpoibPseudoHeader.writeDestination(pseudo, 0, 0x48, Gid.parse("fe80::2"));
            w.writeIpoib(ib0, times[0], pseudo, 0, MemorySegment.ofArray(frame), 0, frame.length);
            IpoibPseudoHeader.writeGrh(pseudo, 0, new Grh().payloadLength(48).hopLimit(1)
                    .sourceGid(Gid.parse("fe80::1")).destinationGid(Gid.parse("ff12:401b:ffff::ffff:ffff")), 0x9b1);
            w.writeIpoib(ib0, times[1], pseudo, 0, MemorySegment.ofArray(frame), 0, frame.length);
            byte[] junk = new byte[IpoibPseudoHeader.LENGTH];
            for (int i = 0; i < 20; i++) {
                junk[i] = (byte) (0x21 + i); // IP version 2 in the first nibble, as in tcpdump's tests/ipoib.pcap
            }
            w.writeIpoib(ib0, times[2], MemorySegment.ofArray(junk), 0, MemorySegment.ofArray(frame), 0, frame.length);
        }
        return out.toByteArray();
    }

    private record Frames(int address, int grh, int unknown, int sourceQpn, List<String> reported) {}

    /** Walks IPoIB frames as a reader should: junk pseudo-headers reported, the rest decoded. */
    private static Frames walk(PcapReader r) throws DecodeException {
        int address = 0;
        int grh = 0;
        int unknown = 0;
        int sqpn = -1;
        List<String> reported = new ArrayList<>();
        while (r.next()) {
            MemorySegment d = r.data();
            switch (IpoibPseudoHeader.form(d, 0)) {
                case ADDRESS -> address++;
                case GRH -> {
                    grh++;
                    IpoibPseudoHeader.readGrh(d, 0, new Grh());
                    sqpn = IpoibPseudoHeader.sourceQpn(d, 0);
                }
                case UNKNOWN -> {
                    unknown++;
                    DecodeException e = assertThrows(DecodeException.class, () -> IpoibPseudoHeader.readGrh(d, 0, new Grh()));
                    reported.add(e.getMessage());
                }
            }
        }
        return new Frames(address, grh, unknown, sqpn, reported);
    }

    @Test
    void editcapsClassicPcapOfOurPcapngReadsTheSameFrames() throws Exception {
        long[] times = {1_700_000_000_123_456_789L, 1_700_000_000_223_456_789L, 1_700_000_001_000_000_001L};
        Path pcapng = Files.write(dir.resolve("in.pcapng"), pcapngWithThreeFrames(times));
        for (String format : new String[] {"pcap", "nsecpcap"}) {
            Path out = dir.resolve("out-" + format + ".pcap");
            editcap("-F", format, pcapng.toString(), out.toString());
            PcapReader r = new PcapReader(MemorySegment.ofArray(Files.readAllBytes(out)));
            assertEquals(LinkType.IPOIB, r.linkType(), format);
            assertEquals(format.equals("nsecpcap"), r.nanosecondTimestamps(), format);
            List<Long> stamps = new ArrayList<>();
            PcapReader again = new PcapReader(MemorySegment.ofArray(Files.readAllBytes(out)));
            while (again.next()) {
                stamps.add(again.timestampNanos());
                assertEquals(IpoibPseudoHeader.LENGTH + 8, again.capturedLength());
            }
            long unit = format.equals("nsecpcap") ? 1 : 1_000;
            assertEquals(List.of(times[0] / unit * unit, times[1] / unit * unit, times[2] / unit * unit), stamps, format);
            Frames f = walk(r);
            assertEquals(1, f.address(), format);
            assertEquals(1, f.grh(), format);
            assertEquals(0x9b1, f.sourceQpn(), format);
            assertEquals(1, f.unknown(), "the junk frame is reported, the walk goes on: " + f.reported());
        }
    }

    private static void editcap(String... args) throws Exception {
        Path editcap = Path.of("/usr/bin/editcap");
        if (!Files.isExecutable(editcap)) {
            fail("editcap is required for this test: install Wireshark's command-line tools (Debian package "
                    + "'tshark', which brings wireshark-common with editcap)");
        }
        List<String> command = new ArrayList<>(List.of(editcap.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "editcap did not finish");
        assertEquals(0, p.exitValue(), "editcap " + String.join(" ", args) + ": " + output);
    }
}
