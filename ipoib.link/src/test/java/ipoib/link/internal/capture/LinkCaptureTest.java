package ipoib.link.internal.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.pcap.IpoibPseudoHeader;
import ipoib.codec.pcap.LinkType;
import ipoib.codec.pcap.PcapngReader;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture ring: frames are copied into fixed slots (never more than the ring holds, the
 * rest counted as dropped), written in commit order by the writer thread, and the capture ends
 * by itself after its count.
 */
class LinkCaptureTest {
    private static final Gid MGID = Gid.parse("ff12:401b:ffff::ffff:ffff");

    @TempDir
    Path dir;

    private static MemorySegment frame(int n) {
        byte[] b = new byte[8];
        b[0] = (byte) 0x88;
        b[1] = (byte) 0xB5;
        b[4] = (byte) n;
        return MemorySegment.ofArray(b);
    }

    private static int count(Path file) throws Exception {
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Files.readAllBytes(file)));
        int n = 0;
        while (reader.next()) {
            assertEquals(LinkType.IPOIB, reader.linkType());
            assertEquals(n, Byte.toUnsignedInt(reader.data().get(java.lang.foreign.ValueLayout.JAVA_BYTE,
                    IpoibPseudoHeader.LENGTH + 4)), "frames in commit order");
            n++;
        }
        return n;
    }

    @Test
    void aFullRingCountsTheFramesItCannotTake() throws Exception {
        Path file = dir.resolve("full.pcapng");
        LinkCapture capture = new LinkCapture("t", file, 10_000, () -> { });
        int[] slots = new int[LinkCapture.SLOTS];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = capture.claim();
            assertTrue(slots[i] >= 0);
        }
        assertEquals(-1, capture.claim(), "every slot is taken");
        assertEquals(1, capture.dropped());
        for (int i = 0; i < slots.length; i++) {
            capture.fillSent(slots[i], 0xFFFFFF, MGID, frame(i), 0, 8);
            capture.commit(slots[i]);
        }
        capture.close();
        assertEquals(LinkCapture.SLOTS, count(file));
        String summary = capture.summary();
        assertTrue(summary.contains(LinkCapture.SLOTS + " frames written (0 received, " + LinkCapture.SLOTS + " sent), 1 dropped"),
                summary);
    }

    @Test
    void theCaptureEndsByItselfAfterItsCount() throws Exception {
        Path file = dir.resolve("count.pcapng");
        CountDownLatch ended = new CountDownLatch(1);
        LinkCapture capture = new LinkCapture("t", file, 3, ended::countDown);
        MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
        for (int i = 0; i < 3; i++) {
            int slot = capture.claim();
            MemorySegment.copy(frame(i), 0, buffer, 40, 8);
            capture.fillReceived(slot, buffer, 0, false, 0x9b1, 0x48, new Gid(Gid.DEFAULT_SUBNET_PREFIX, 1), 40, 8);
            capture.commit(slot);
        }
        assertEquals(-1, capture.claim(), "the count is reached");
        assertEquals(0, capture.dropped(), "not a drop");
        assertTrue(ended.await(10, TimeUnit.SECONDS));
        assertFalse(capture.isRunning());
        assertEquals(3, count(file));
        assertTrue(capture.summary().contains("(ended): 3 frames written (3 received, 0 sent)"), capture.summary());
    }

    @Test
    void aReceivedFrameWithAGrhCarriesTheSendersQpnWhereWiresharkReadsIt() throws Exception {
        // Wireshark's IPoIB dissector reads "Source QPN" (ipoib.grh.sqpn) from octets 5-7 of the
        // GRH pseudo-header; copying the GRH as received put PayLen/NxtHdr/HopLmt there.
        Path file = dir.resolve("grh.pcapng");
        LinkCapture capture = new LinkCapture("t", file, 1, () -> { });
        MemorySegment buffer = MemorySegment.ofArray(new byte[64]);
        Gid sender = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0101L);
        new ipoib.codec.iba.Grh().flowLabel(0xABCDE).payloadLength(0x54).hopLimit(0x1b).sourceGid(sender)
                .destinationGid(MGID).encode(buffer, 0);
        MemorySegment.copy(frame(0), 0, buffer, 40, 8);
        int slot = capture.claim();
        capture.fillReceived(slot, buffer, 0, true, 0x0009b1, 0x48, new Gid(Gid.DEFAULT_SUBNET_PREFIX, 1), 40, 8);
        capture.commit(slot);
        capture.close();
        PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Files.readAllBytes(file)));
        assertTrue(reader.next());
        MemorySegment pseudo = reader.data();
        assertEquals(0x0009b1, IpoibPseudoHeader.sourceQpn(pseudo, 0));
        assertEquals(0, pseudo.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 4), "octet 4 zero");
        assertEquals(0xABCDE, ipoib.codec.Wire.u32(pseudo, 0) & 0xFFFFF, "flow label kept");
        assertEquals(MGID, IpoibPseudoHeader.destinationGid(pseudo, 0));
        assertEquals(sender.prefix(), ipoib.codec.Wire.u64(pseudo, 8), "source GID kept");
        assertEquals(sender.interfaceId(), ipoib.codec.Wire.u64(pseudo, 16));
    }
}
