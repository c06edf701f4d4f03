package ipoib.verbs.loopback.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.verbs.loopback.fabric.Fabric;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.Faults;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.PartitionConfig;
import java.io.ByteArrayInputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

class SubnetPictureTest {

    @Test
    void drawsEveryPortAndMarksFullAndLimitedMembersOfEachPartition() throws Exception {
        FabricConfig d = FabricConfig.defaults();
        try (Fabric fabric = new Fabric(new FabricConfig(3, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse("Default=0x7fff, ipoib : ALL ;"),
                        PartitionConfig.parse("P1=0x0001, ipoib : loop0=full, loop2=limited ;")), 7))) {
            fabric.start();
            String svg = SubnetPicture.svg(fabric);
            // Well-formed XML: a browser draws it inline and as subnet.svg.
            DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
            assertEquals(3, count(svg, "<g class='fabric-port "));
            assertEquals(3, count(svg, "class='fabric-hca'"));
            assertTrue(svg.contains("SM LID 1"), svg);
            // P_Key 0x0001: loop0 full, loop1 not a member, loop2 limited (columns in port order).
            Matcher row = Pattern.compile("<g class='fabric-partition' id='fabric-partition-0001'>(.*?)</g>").matcher(svg);
            assertTrue(row.find(), svg);
            List<String> marks = Pattern.compile(">([FL])</text>").matcher(row.group(1)).results().map(m -> m.group(1)).toList();
            assertEquals(List.of("F", "L"), marks);
            Matcher x = Pattern.compile("<text x='(\\d+)'[^>]*>([FL])</text>").matcher(row.group(1));
            assertTrue(x.find());
            int first = Integer.parseInt(x.group(1));
            assertTrue(x.find());
            assertEquals(2 * SubnetPicture.column(3), Integer.parseInt(x.group(1)) - first,
                    "loop2's column is two to the right of loop0's");
        }
    }

    @Test
    void everyMemberOfAGroupIsMarkedWithTheLettersOfItsJoinStates() throws Exception {
        FabricConfig d = FabricConfig.defaults();
        try (Fabric fabric = new Fabric(new FabricConfig(4, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse("Default=0x7fff, ipoib : ALL ;")), 7))) {
            fabric.start();
            Mgid mgid = Mgid.parse("ff12:401b:ffff::e000:1");
            Gid creator = fabric.port("loop0", 1).gid(0);
            fabric.subnetManager().join(mgid, creator, JoinState.FULL_MEMBER.bit(), new McMemberRecord(mgid, creator,
                    QKey.of(0x0b1b), Lid.UNASSIGNED, IbMtu.MTU_2048, 0, PKey.of(0xffff), Rate.RATE_10_GBPS, 0, 0, 0, 0,
                    JoinState.FULL_MEMBER, false));
            fabric.subnetManager().join(mgid, fabric.port("loop1", 1).gid(0), JoinState.NON_MEMBER.bit(), null);
            fabric.subnetManager().join(mgid, fabric.port("loop2", 1).gid(0), JoinState.SEND_ONLY_NON_MEMBER.bit(), null);
            fabric.subnetManager().join(mgid, fabric.port("loop3", 1).gid(0), JoinState.SEND_ONLY_FULL_MEMBER.bit(), null);
            String svg = SubnetPicture.svg(fabric);
            assertTrue(svg.contains("F full, N non-member, S send-only"), "the legend");
            int mlid = fabric.subnetManager().group(mgid).mlid().value();
            Matcher row = Pattern.compile("<g class='fabric-group' id='fabric-group-" + mlid + "'>(.*?)</g>").matcher(svg);
            assertTrue(row.find(), svg);
            // One mark per member, in port order; both send-only states are what the legend calls S.
            List<String> marks = Pattern.compile("font-weight='bold'>([^<]*)</text>").matcher(row.group(1)).results()
                    .map(m -> m.group(1)).toList();
            assertEquals(List.of("F", "N", "S", "S"), marks, svg);
        }
    }

    @Test
    void sixtyFourPortsFitInABoundedWidthInRowsOfPorts() throws Exception {
        FabricConfig d = FabricConfig.defaults();
        try (Fabric fabric = new Fabric(new FabricConfig(64, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse("Default=0x7fff, ipoib : ALL ;")), 7))) {
            fabric.start();
            String svg = SubnetPicture.svg(fabric);
            var document = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
            int width = Integer.parseInt(document.getDocumentElement().getAttribute("width"));
            assertTrue(width <= 1400, "64 ports drawn " + width + " px wide");
            assertEquals(64, count(svg, "<g class='fabric-port "));
            // Every port box and every membership mark lies inside the picture.
            Matcher x = Pattern.compile("<(?:rect|text) x='(\\d+)'").matcher(svg);
            int right = 0;
            while (x.find()) {
                right = Math.max(right, Integer.parseInt(x.group(1)));
            }
            assertTrue(right < width, "something drawn at x=" + right + " of " + width);
            // All 64 are members of the default partition: 64 marks, one per column.
            Matcher row = Pattern.compile("<g class='fabric-partition' id='fabric-partition-7fff'>(.*?)</g>").matcher(svg);
            assertTrue(row.find(), svg);
            assertEquals(64, Pattern.compile(">[FL]</text>").matcher(row.group(1)).results().count());
        }
    }

    @Test
    void aFaultADownPortAndDropsForWantOfReceiveBuffersAreDrawnApartWithALegend() throws Exception {
        FabricConfig d = FabricConfig.defaults();
        try (Fabric fabric = new Fabric(new FabricConfig(4, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse("Default=0x7fff, ipoib : ALL=full ;")), 7))) {
            fabric.start();
            fabric.setFaults(fabric.port("loop1", 1), new Faults(30, 0, 0, 0, 0));
            fabric.portDown(fabric.port("loop2", 1));
            fabric.awaitEventsDelivered();
            sendToAQueuePairWithoutReceiveBuffers(fabric.port("loop0", 1), fabric.port("loop3", 1));
            String svg = SubnetPicture.svg(fabric);
            DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
            assertEquals("fabric-port port-active", portClass(svg, "loop0"));
            assertEquals("fabric-port port-active port-fault", portClass(svg, "loop1"));
            assertTrue(port(svg, "loop1").contains(">loss 30%</text>"), port(svg, "loop1"));
            assertTrue(port(svg, "loop1").contains("stroke-dasharray"), port(svg, "loop1"));
            assertEquals("fabric-port port-down", portClass(svg, "loop2"));
            assertEquals("fabric-port port-active port-no-rx-buffer", portClass(svg, "loop3"));
            assertTrue(port(svg, "loop3").contains(">1 no rx buffer</text>"), port(svg, "loop3"));
            Matcher legend = Pattern.compile("<g id='fabric-legend'.*?</g>").matcher(svg);
            assertTrue(legend.find(), svg);
            for (String words : List.of("Active", "down (not Active)", "fault injected", "no receive buffer")) {
                assertTrue(legend.group().contains(words), legend.group());
            }
        }
    }

    /** Sends one datagram from {@code from} to a fresh UD queue pair at {@code to} that has no receive buffer. */
    private static void sendToAQueuePairWithoutReceiveBuffers(LoopPort from, LoopPort to) {
        QKey qkey = QKey.of(0x0b1b);
        int index = from.pkeyTable().indexOfPartition(PKey.of(0x7fff)).getAsInt();
        var sendCq = from.createCompletionQueue(16);
        var sender = from.createUdQueuePair(new UdQueuePairConfig(sendCq, sendCq, 8, 8, index, qkey, true));
        var receiveCq = to.createCompletionQueue(16);
        var receiver = to.createUdQueuePair(new UdQueuePairConfig(receiveCq, receiveCq, 8, 8,
                to.pkeyTable().indexOfPartition(PKey.of(0x7fff)).getAsInt(), qkey, true));
        MemorySegment memory = Arena.ofAuto().allocate(4096);
        var region = from.device().registerMemory(memory);
        var handle = from.createAddressHandle(AddressVector.local(to.attributes().lid(), 0));
        assertTrue(sender.postSend(1, region, 0, 64, handle, receiver.qpn(), qkey));
        assertEquals(1, to.receiveBufferDrops());
    }

    private static String port(String svg, String device) {
        Matcher m = Pattern.compile("<g class='[^']*' id='fabric-port-" + device + "-1'>.*?</g>").matcher(svg);
        assertTrue(m.find(), svg);
        return m.group();
    }

    private static String portClass(String svg, String device) {
        Matcher m = Pattern.compile("<g class='([^']*)' id='fabric-port-" + device + "-1'>").matcher(svg);
        assertTrue(m.find(), svg);
        return m.group(1);
    }

    private static int count(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }
}
