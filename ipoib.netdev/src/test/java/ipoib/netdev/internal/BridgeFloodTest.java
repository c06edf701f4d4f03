package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What one host can make the bridge do to the fabric: a forged segment size cannot multiply one
 * packet into tens of thousands of frames, forged membership reports cannot start more than a
 * budget of joins, and failing joins do not flood the log.
 */
class BridgeFloodTest {
    private static final int ACK = 0x10;

    /**
     * A {@code struct virtio_net_hdr} (include/uapi/linux/virtio_net.h) in the host's order: checksum
     * left to the device from {@code checksumStart}, a GSO type and size.
     */
    static byte[] vnetHeader(int gsoType, int gsoSize, int headerLength, int checksumStart, int checksumOffset) {
        return ByteBuffer.allocate(VnetHeader.LENGTH).order(ByteOrder.nativeOrder())
                .put((byte) VnetHeader.NEEDS_CHECKSUM).put((byte) gsoType).putShort((short) headerLength)
                .putShort((short) gsoSize).putShort((short) checksumStart).putShort((short) checksumOffset).array();
    }

    @Test
    void aForgedTcpSegmentSizeOfOneIsRefusedAndCountedNotCutIntoAFrameAnOctet() {
        BridgeHarness h = new BridgeHarness(true);
        byte[] packet = SegmentationTest.ipv4Tcp(SegmentationTest.payload(1000), 1, ACK, 7);
        h.fromKernel(vnetHeader(VnetHeader.GSO_TCPV4, 1, 52, 20, 16), packet);
        assertEquals(0, h.sent.size(), "frames sent for one 1000-octet segment with gso_size 1");
        assertEquals(1, h.counter("tx_gso_segment_size_refused"));

        // At Linux's minimal accepted MSS the packet is cut as asked: ceil(1000 / 88) segments.
        h.fromKernel(vnetHeader(VnetHeader.GSO_TCPV4, Segmentation.MIN_TCP_SEGMENT, 52, 20, 16), packet);
        assertEquals(12, h.sent.size());
        assertEquals(1, h.counter("tx_tso_packets"));
        // A segment that fits its size is not cut, whatever the size says.
        byte[] small = SegmentationTest.ipv4Tcp(SegmentationTest.payload(10), 1, ACK, 8);
        h.fromKernel(vnetHeader(VnetHeader.GSO_TCPV4, 10, 52, 20, 16), small);
        assertEquals(13, h.sent.size());
        assertEquals(1, h.counter("tx_gso_segment_size_refused"));
    }

    @Test
    void aUdpSegmentSendOfMoreDatagramsThanLinuxAllowsIsRefusedAndCounted() {
        BridgeHarness h = new BridgeHarness(true);
        byte[] packet = SegmentationTest.udp(false, SegmentationTest.payload(1290));
        h.fromKernel(vnetHeader(VnetHeader.GSO_UDP_L4, 10, 28, 20, 6), packet);
        assertEquals(0, h.sent.size(), "129 datagrams of 10 octets: more than UDP_MAX_SEGMENTS");
        assertEquals(1, h.counter("tx_gso_segment_size_refused"));
        byte[] most = SegmentationTest.udp(false, SegmentationTest.payload(1280));
        h.fromKernel(vnetHeader(VnetHeader.GSO_UDP_L4, 10, 28, 20, 6), most);
        assertEquals(Segmentation.MAX_UDP_SEGMENTS, h.sent.size());
    }

    /** An IPv4 packet to 224.0.0.22 with an IGMPv3 report (RFC 3376 §4.2) joining {@code count} groups from {@code first}. */
    static byte[] igmpV3Report(int first, int count) {
        ByteBuffer b = ByteBuffer.allocate(20 + 8 + 8 * count);
        b.put((byte) 0x45).put((byte) 0).putShort((short) b.capacity()).putInt(0).put((byte) 1).put((byte) 2)
                .putShort((short) 0).put(new byte[] {10, 0, 0, 1}).put(new byte[] {(byte) 224, 0, 0, 22});
        b.put((byte) 0x22).put((byte) 0).putShort((short) 0).putShort((short) 0).putShort((short) count);
        for (int i = 0; i < count; i++) {
            b.put((byte) 4).put((byte) 0).putShort((short) 0).putInt(first + i); // CHANGE_TO_EXCLUDE, no sources
        }
        return b.array();
    }

    @Test
    void forgedReportsStartNoMoreJoinsThanTheHostsBudgetAndTheRestAreCounted() {
        BridgeHarness h = new BridgeHarness(false);
        for (int r = 0; r < 25; r++) {
            h.fromKernel(igmpV3Report(0xEF00_0000 + r * 200, 200));
        }
        assertEquals(JoinBudget.BURST, h.joins.size(), "joins started at once");
        assertEquals(25 * 200 - JoinBudget.BURST, h.counter("membership_joins_over_budget"));
        assertEquals(JoinBudget.BURST, h.bridge.membership().groups().size(), "only the groups joined are members");
        h.clock.advance(1, TimeUnit.SECONDS);
        h.fromKernel(igmpV3Report(0xEF10_0000, 200));
        assertEquals(JoinBudget.BURST + JoinBudget.PER_SECOND, h.joins.size(), "joins a second later");
        assertEquals(26, h.counter("membership_reports"), "every report is read, also those over budget");
    }

    @Test
    void failedJoinsAreLoggedOncePerTenSecondsUnderTheNameTheUserKnows() {
        BridgeHarness h = new BridgeHarness(false);
        h.joinOutcome = g -> new IllegalStateException("SA refused");
        h.fromKernel(igmpV3Report(0xEF00_0000, 30));
        assertEquals(30, h.joins.size());
        assertEquals(1, h.warnings.size(), String.join("\n", h.warnings));
        String w = h.warnings.get(0);
        assertTrue(w.startsWith("rbib0: join of 239.0.0.0 failed: SA refused"), w);
        assertFalse(w.contains("ipb"), "the device's temporary name: " + w);
        assertEquals(30, h.counter("membership_join_failures"));
        h.clock.advance(10, TimeUnit.SECONDS);
        h.fromKernel(igmpV3Report(0xEF00_1000, 1));
        assertEquals(2, h.warnings.size());
        assertTrue(h.warnings.get(1).endsWith("(29 more failed joins not logged)"), h.warnings.get(1));
    }
}
