package ipoib.codec.pcap;

import ipoib.api.Gid;
import ipoib.codec.iba.DecoderFuzz;
import ipoib.codec.iba.Grh;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Random and mutated input for the ERF header, the IPoIB pseudo-header and the pcapng reader. */
class PcapFuzzTest {
    private static final int RANDOM = 2_000;
    private static final int MUTATED = 2_000;

    private static List<byte[]> captures() {
        List<byte[]> captures = new ArrayList<>();
        Random random = new Random(31);
        for (int c = 0; c < 10; c++) {
            ByteArrayOutputStream sink = new ByteArrayOutputStream();
            try (PcapngWriter writer = PcapngWriter.to(sink)) {
                writer.addInterface(LinkType.ERF, random.nextInt(3) * 64, TimestampResolution.NANOSECONDS, "wire");
                writer.addInterface(LinkType.IPOIB, 0, TimestampResolution.MICROSECONDS, c % 2 == 0 ? null : "ib0");
                for (int p = 0; p < 3; p++) {
                    byte[] data = new byte[random.nextInt(100)];
                    random.nextBytes(data);
                    writer.writePacket(random.nextInt(2), random.nextLong(), MemorySegment.ofArray(data), 0, data.length);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            captures.add(sink.toByteArray());
        }
        return captures;
    }

    @Test
    void pcapngReader() {
        DecoderFuzz.run("pcapng reader", 41, RANDOM, 300, MUTATED * 2, PcapFuzzTest::captures, (s, o, l) -> {
            PcapngReader reader = new PcapngReader(s.asSlice(o, Math.min(l, s.byteSize() - o)));
            while (reader.next()) {
                reader.timestampNanos();
                reader.data();
                reader.linkType();
            }
        });
    }

    @Test
    void erfAndPseudoHeaders() {
        List<byte[]> headers = new ArrayList<>();
        byte[] erf = new byte[ErfHeader.LENGTH + 8];
        new ErfHeader(ErfHeader.timestampOf(123_456_789L), 21, 4, 24, 0, 8).encode(MemorySegment.ofArray(erf), 0);
        headers.add(erf);
        byte[] grh = new byte[IpoibPseudoHeader.LENGTH];
        new Grh().sourceGid(Gid.parse("fe80::1")).destinationGid(Gid.parse("ff12:401b:ffff::1"))
                .encode(MemorySegment.ofArray(grh), 0);
        headers.add(grh);
        byte[] address = new byte[IpoibPseudoHeader.LENGTH];
        IpoibPseudoHeader.writeDestination(MemorySegment.ofArray(address), 0, 0x48, Gid.parse("fe80::2"));
        headers.add(address);
        DecoderFuzz.run("ERF header", 42, RANDOM, 24, MUTATED, () -> headers,
                (s, o, l) -> ErfHeader.decode(s, o).epochNanos());
        Grh view = new Grh();
        DecoderFuzz.run("IPoIB pseudo-header", 43, RANDOM, 48, MUTATED, () -> headers, (s, o, l) -> {
            IpoibPseudoHeader.destinationGid(s, o);
            if (IpoibPseudoHeader.isGrh(s, o)) {
                IpoibPseudoHeader.readGrh(s, o, view);
            } else {
                IpoibPseudoHeader.destinationQpn(s, o);
            }
        });
    }
}
