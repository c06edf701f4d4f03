package ipoib.codec.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.iba.Grh;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class PcapngTest {

    /**
     * The blocks of a one-packet capture laid out by hand from the pcapng specification: SHB
     * (magic, version 1.0, unknown section length, shb_userappl, end of options), IDB (link type
     * 242, snap length 0, if_tsresol 9), EPB (interface 0, timestamp, lengths, data padded to 4).
     */
    @Test
    void writesTheBlocksTheSpecificationDescribes() throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (PcapngWriter writer = PcapngWriter.to(sink)) {
            int id = writer.addInterface(LinkType.IPOIB, 0, TimestampResolution.NANOSECONDS, null);
            writer.writePacket(id, 0x0000_0001_0000_0002L, MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5}), 0, 5);
        }
        ByteBuffer e = ByteBuffer.allocate(200).order(ByteOrder.LITTLE_ENDIAN);
        byte[] app = "ipoib codec".getBytes(StandardCharsets.US_ASCII);
        e.putInt(0x0A0D0D0A).putInt(48).putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1)
                .putShort((short) 4).putShort((short) 11).put(app).put((byte) 0).putInt(0).putInt(48);
        e.putInt(1).putInt(32).putShort((short) 242).putShort((short) 0).putInt(0)
                .putShort((short) 9).putShort((short) 1).put((byte) 9).put(new byte[3]).putInt(0).putInt(32);
        e.putInt(6).putInt(40).putInt(0).putInt(1).putInt(2).putInt(5).putInt(5)
                .put(new byte[] {1, 2, 3, 4, 5, 0, 0, 0}).putInt(40);
        assertArrayEquals(Arrays.copyOf(e.array(), e.position()), sink.toByteArray());
    }

    private record Packet(int iface, long nanos, byte[] data) {}

    @Provide
    Arbitrary<List<Packet>> captures() {
        Arbitrary<Packet> packet = Combinators.combine(Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 4_000_000_000_000_000_000L),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(3000)).as(Packet::new);
        return packet.list().ofMaxSize(20);
    }

    @Property(tries = 200)
    void readerReturnsWhatTheWriterWrote(@ForAll("captures") List<Packet> packets,
                                         @ForAll @IntRange(min = 512, max = 5000) int bufferSize,
                                         @ForAll @IntRange(max = 2000) int snapLength) throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        TimestampResolution[] resolutions = {TimestampResolution.NANOSECONDS, TimestampResolution.MICROSECONDS,
                TimestampResolution.NANOSECONDS};
        int[] snaps = {0, 0, snapLength};
        try (PcapngWriter writer = new PcapngWriter(java.nio.channels.Channels.newChannel(sink), bufferSize)) {
            assertEquals(0, writer.addInterface(LinkType.IPOIB, snaps[0], resolutions[0], "ib0"));
            assertEquals(1, writer.addInterface(LinkType.ERF, snaps[1], resolutions[1], null));
            assertEquals(2, writer.addInterface(147, snaps[2], resolutions[2], "x".repeat(37)));
            for (Packet p : packets) {
                writer.writePacket(p.iface(), p.nanos(), MemorySegment.ofArray(p.data()), 0, p.data().length);
            }
        }
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(sink.toByteArray()));
        for (Packet p : packets) {
            assertTrue(reader.next());
            assertEquals(p.iface(), reader.interfaceId());
            assertEquals(new int[] {LinkType.IPOIB, LinkType.ERF, 147}[p.iface()], reader.linkType());
            long expectedNanos = p.iface() == 1 ? p.nanos() / 1000 * 1000 : p.nanos();
            assertEquals(expectedNanos, reader.timestampNanos());
            int snap = snaps[p.iface()];
            int kept = snap == 0 ? p.data().length : Math.min(snap, p.data().length);
            assertEquals(p.data().length, reader.originalLength());
            assertArrayEquals(Arrays.copyOf(p.data(), kept), reader.data().toArray(ValueLayout.JAVA_BYTE));
        }
        assertFalse(reader.next());
        assertEquals(3, reader.interfaceCount());
        assertEquals(snapLength, reader.snapLength(2));
    }

    @Test
    void ipoibAndInfinibandHelpersFrameThePacket() throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        byte[] frame = {0x08, 0x00, 0x00, 0x00, 0x45};
        byte[] packet = new byte[34];
        packet[1] = 0x02;
        Gid gid = Gid.parse("fe80::2:c903:0:1");
        MemorySegment pseudo = MemorySegment.ofArray(new byte[IpoibPseudoHeader.LENGTH]);
        IpoibPseudoHeader.writeDestination(pseudo, 0, 0x48, gid);
        long t = 1_700_000_000_123_456_789L;
        try (PcapngWriter writer = PcapngWriter.to(sink)) {
            int ipoib = writer.addInterface(LinkType.IPOIB, 0, TimestampResolution.NANOSECONDS, "ib0");
            int erf = writer.addInterface(LinkType.ERF, 0, TimestampResolution.NANOSECONDS, "ib-wire");
            writer.writeIpoib(ipoib, t, pseudo, 0, MemorySegment.ofArray(frame), 0, frame.length);
            writer.writeInfiniband(erf, t, MemorySegment.ofArray(packet), 0, packet.length);
            assertThrows(IllegalArgumentException.class,
                    () -> writer.writeIpoib(erf, t, pseudo, 0, MemorySegment.ofArray(frame), 0, frame.length));
            assertThrows(IllegalArgumentException.class,
                    () -> writer.writeInfiniband(ipoib, t, MemorySegment.ofArray(packet), 0, packet.length));
            assertThrows(IllegalArgumentException.class,
                    () -> writer.writePacket(7, t, MemorySegment.ofArray(packet), 0, packet.length));
        }
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(sink.toByteArray()));
        assertTrue(reader.next());
        MemorySegment data = reader.data();
        assertEquals(IpoibPseudoHeader.LENGTH + frame.length, data.byteSize());
        assertFalse(IpoibPseudoHeader.isGrh(data, 0));
        assertEquals(0x48, IpoibPseudoHeader.destinationQpn(data, 0));
        assertEquals(gid, IpoibPseudoHeader.destinationGid(data, 0));
        assertArrayEquals(frame, data.asSlice(IpoibPseudoHeader.LENGTH).toArray(ValueLayout.JAVA_BYTE));

        assertTrue(reader.next());
        data = reader.data();
        ErfHeader erf = ErfHeader.decode(data, 0);
        assertEquals(ErfHeader.TYPE_INFINIBAND, erf.type());
        assertEquals(ErfHeader.FLAG_VARYING_LENGTH, erf.flags());
        assertEquals(ErfHeader.LENGTH + packet.length, erf.recordLength());
        assertEquals(packet.length, erf.wireLength());
        assertEquals(t, erf.epochNanos());
        assertEquals(t, reader.timestampNanos());
        assertArrayEquals(packet, data.asSlice(ErfHeader.LENGTH).toArray(ValueLayout.JAVA_BYTE));
        assertFalse(reader.next());
    }

    @Property(tries = 500)
    void erfTimestampsKeepTheNanosecond(@ForAll @LongRange(max = 4_294_967_295_999_999_999L) long nanos) {
        long ts = ErfHeader.timestampOf(nanos);
        assertEquals(nanos / 1_000_000_000L, ts >>> 32);
        assertEquals(nanos, new ErfHeader(ts, 21, 0, 16, 0, 0).epochNanos());
    }

    @Property(tries = 300)
    void erfHeaderRoundTrips(@ForAll long ts, @ForAll @IntRange(max = 255) int type, @ForAll @IntRange(max = 255) int flags,
                             @ForAll @IntRange(min = 16, max = 0xFFFF) int rlen, @ForAll @IntRange(max = 0xFFFF) int lctr,
                             @ForAll @IntRange(max = 0xFFFF) int wlen) throws DecodeException {
        ErfHeader header = new ErfHeader(ts, type, flags, rlen, lctr, wlen);
        byte[] out = new byte[ErfHeader.LENGTH];
        header.encode(MemorySegment.ofArray(out), 0);
        assertEquals(header, ErfHeader.decode(MemorySegment.ofArray(out), 0));
        assertEquals((byte) ts, out[0], "timestamp is little-endian");
        assertEquals((byte) (rlen >>> 8), out[10], "rlen is big-endian");
        assertEquals((type & 0x80) != 0, header.hasExtensionHeaders());
    }

    @Test
    void erfAndPseudoHeaderFaultsAreNamed() {
        assertEquals("ERF header", assertThrows(DecodeException.class,
                () -> ErfHeader.decode(MemorySegment.ofArray(new byte[15]), 0)).field());
        byte[] shortRecord = new byte[16];
        shortRecord[11] = 15;
        DecodeException e = assertThrows(DecodeException.class,
                () -> ErfHeader.decode(MemorySegment.ofArray(shortRecord), 0));
        assertEquals("ERF rlen", e.field());
        assertEquals(10, e.offset());
        MemorySegment grh = MemorySegment.ofArray(new byte[40]);
        new Grh().sourceGid(Gid.parse("fe80::1")).destinationGid(Gid.parse("ff12:401b:ffff::1")).encode(grh, 0);
        assertEquals("IPoIB pseudo-header form",
                assertThrows(DecodeException.class, () -> IpoibPseudoHeader.destinationQpn(grh, 0)).field());
        MemorySegment address = MemorySegment.ofArray(new byte[40]);
        assertEquals("IPoIB pseudo-header form",
                assertThrows(DecodeException.class, () -> IpoibPseudoHeader.readGrh(address, 0, new Grh())).field());
        assertEquals("IPoIB pseudo-header", assertThrows(DecodeException.class,
                () -> IpoibPseudoHeader.isGrh(MemorySegment.ofArray(new byte[39]), 0)).field());
        assertThrows(IllegalArgumentException.class,
                () -> IpoibPseudoHeader.writeDestination(address, 0, 1 << 24, Gid.ZERO));
    }

    @Test
    void grhPseudoHeaderCarriesTheReceivedGrh() throws DecodeException {
        MemorySegment s = MemorySegment.ofArray(new byte[40]);
        Grh grh = new Grh().trafficClass(1).flowLabel(2).payloadLength(40).hopLimit(1)
                .sourceGid(Gid.parse("fe80::2:c903:0:1")).destinationGid(Gid.parse("ff12:401b:ffff::ffff:ffff"));
        IpoibPseudoHeader.writeGrh(s, 0, grh);
        assertTrue(IpoibPseudoHeader.isGrh(s, 0));
        assertEquals(grh.destinationGid(), IpoibPseudoHeader.destinationGid(s, 0));
        assertEquals(grh.toString(), IpoibPseudoHeader.readGrh(s, 0, new Grh()).toString());
    }

    @Test
    void readsABigEndianSection() throws DecodeException {
        ByteBuffer b = ByteBuffer.allocate(100).order(ByteOrder.BIG_ENDIAN);
        b.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short) 1).putShort((short) 0).putLong(-1)
                .putInt(28);
        b.putInt(1).putInt(20).putShort((short) 197).putShort((short) 0).putInt(96).putInt(20);
        b.putInt(6).putInt(36).putInt(0).putInt(0).putInt(1000).putInt(3).putInt(9).put(new byte[] {7, 8, 9, 0})
                .putInt(36);
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Arrays.copyOf(b.array(), b.position())));
        assertTrue(reader.next());
        assertEquals(LinkType.ERF, reader.linkType());
        assertEquals(96, reader.snapLength(0));
        assertEquals(1_000_000, reader.timestampNanos(), "default resolution: microseconds");
        assertEquals(9, reader.originalLength());
        assertArrayEquals(new byte[] {7, 8, 9}, reader.data().toArray(ValueLayout.JAVA_BYTE));
        assertFalse(reader.next());
    }

    private static byte[] validCapture() throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        try (PcapngWriter writer = PcapngWriter.to(sink)) {
            writer.addInterface(LinkType.IPOIB, 0, TimestampResolution.MICROSECONDS, "ib0");
            writer.writePacket(0, 5_000, MemorySegment.ofArray(new byte[] {1, 2, 3}), 0, 3);
        }
        return sink.toByteArray();
    }

    private static DecodeException readFails(byte[] file) {
        return assertThrows(DecodeException.class, () -> {
            PcapngReader reader = new PcapngReader(MemorySegment.ofArray(file));
            while (reader.next()) {
                reader.timestampNanos();
            }
        });
    }

    @Test
    void malformedCapturesAreNamed() throws IOException {
        byte[] valid = validCapture();
        int idb = 48;
        int epb = idb + 40;
        byte[] notSection = valid.clone();
        notSection[0] = 1;
        assertEquals("pcapng first block", readFails(notSection).field());
        byte[] magic = valid.clone();
        magic[8] = 0;
        assertEquals("pcapng byte-order magic", readFails(magic).field());
        byte[] length = valid.clone();
        length[epb + 4] = 33;
        assertEquals("pcapng block total length", readFails(length).field());
        byte[] trailer = valid.clone();
        trailer[valid.length - 4] = 0;
        DecodeException e = readFails(trailer);
        assertEquals("pcapng block total length", e.field());
        assertEquals(valid.length - 4, e.offset());
        byte[] iface = valid.clone();
        iface[epb + 8] = 1;
        assertEquals("pcapng interface ID", readFails(iface).field());
        byte[] captured = valid.clone();
        captured[epb + 20] = 9;
        assertEquals("pcapng captured length", readFails(captured).field());
        byte[] option = valid.clone();
        option[idb + 18] = 100; // if_name length beyond the block
        assertEquals("pcapng option", readFails(option).field());
        for (int cut = 1; cut < valid.length; cut++) {
            byte[] truncated = Arrays.copyOf(valid, cut);
            if (cut == idb || cut == epb) {
                continue; // whole blocks: a shorter, valid capture
            }
            assertTrue(readFails(truncated).field().startsWith("pcapng"));
        }
    }

    @Test
    void writerRefusesMisuseAndClosesOnce() throws IOException {
        assertThrows(IllegalArgumentException.class, () -> new PcapngWriter(null));
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        assertThrows(IllegalArgumentException.class,
                () -> new PcapngWriter(java.nio.channels.Channels.newChannel(sink), 100));
        PcapngWriter writer = PcapngWriter.to(sink);
        assertThrows(IllegalArgumentException.class, () -> writer.addInterface(-1, 0, TimestampResolution.NANOSECONDS, null));
        assertThrows(IllegalArgumentException.class, () -> writer.addInterface(1, -1, TimestampResolution.NANOSECONDS, null));
        assertThrows(IllegalArgumentException.class, () -> writer.addInterface(1, 0, null, null));
        writer.flush();
        assertEquals(48, sink.size(), "the section header is written at once");
        writer.close();
        writer.close();
        assertThrows(ClosedChannelException.class, writer::flush);
        assertThrows(ClosedChannelException.class,
                () -> writer.addInterface(1, 0, TimestampResolution.NANOSECONDS, null));
    }

    /** A channel that takes everything and keeps nothing. */
    private static final class NullChannel implements WritableByteChannel {
        long written;

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            written += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }

    @Test
    void writingPacketsAllocatesNothingAfterWarmUp() throws IOException {
        NullChannel channel = new NullChannel();
        PcapngWriter writer = new PcapngWriter(channel, 4096);
        int erf = writer.addInterface(LinkType.ERF, 0, TimestampResolution.NANOSECONDS, "wire");
        int ipoib = writer.addInterface(LinkType.IPOIB, 0, TimestampResolution.MICROSECONDS, "ib0");
        MemorySegment packet = MemorySegment.ofArray(new byte[2100]);
        MemorySegment pseudo = MemorySegment.ofArray(new byte[40]);
        for (int i = 0; i < 20_000; i++) {
            writer.writeInfiniband(erf, i, packet, 0, 2100);
            writer.writeIpoib(ipoib, i, pseudo, 0, packet, 0, 1500);
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++) {
            writer.writeInfiniband(erf, i, packet, 0, 2100);
            writer.writeIpoib(ipoib, i, pseudo, 0, packet, 0, 1500);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        writer.close();
        assertTrue(allocated < 10_000, "allocated " + allocated + " octets for 20000 packets");
        assertTrue(channel.written > 20_000L * 3600);
    }

    @Test
    void readerRefusesNullAndUndeclaredInterfaces() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> new PcapngReader(null));
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(validCapture()));
        assertTrue(reader.next());
        assertThrows(IllegalArgumentException.class, () -> reader.linkType(1));
        assertEquals(5, reader.timestampUnits());
        assertEquals(5_000, reader.timestampNanos());
        assertEquals(3, reader.capturedLength());
        assertEquals(reader.dataOffset() + 3, reader.dataOffset() + reader.capturedLength());
    }
}
