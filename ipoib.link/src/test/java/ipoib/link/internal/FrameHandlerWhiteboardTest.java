package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import ipoib.api.link.FrameHandler;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The frame handler services a link dispatches to (the whiteboard properties of
 * {@link FrameHandler}): by EtherType, every link's and this link's own, in the order they came.
 */
class FrameHandlerWhiteboardTest {
    final FrameHandlerWhiteboard whiteboard = new FrameHandlerWhiteboard();
    final FrameHandler ipv4 = (link, frame) -> { };
    final FrameHandler arp = (link, frame) -> { };
    final FrameHandler arpOfIb1 = (link, frame) -> { };
    final FrameHandler capture = (link, frame) -> { };

    @Test
    void handlersAreFoundByEtherTypeAndLinkName() {
        whiteboard.forLink("ib0");
        assertNull(whiteboard.add(ipv4, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x0800)));
        assertNull(whiteboard.add(arp, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x0806, FrameHandler.LINK_PROPERTY, "ib0")));
        assertNull(whiteboard.add(arpOfIb1, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x0806, FrameHandler.LINK_PROPERTY, "ib1")));
        assertNull(whiteboard.add(capture, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x0800)));

        assertArrayEquals(new FrameHandler[] {ipv4, capture}, whiteboard.get(0x0800));
        assertArrayEquals(new FrameHandler[] {arp}, whiteboard.get(0x0806), "ib1's handler is not ib0's");
        assertEquals(0, whiteboard.get(0x86DD).length);
        assertSame(whiteboard.get(0x0800), whiteboard.get(0x0800), "the per-frame lookup allocates nothing");

        whiteboard.forLink("ib1");
        assertArrayEquals(new FrameHandler[] {arpOfIb1}, whiteboard.get(0x0806));
        whiteboard.remove(ipv4);
        assertArrayEquals(new FrameHandler[] {capture}, whiteboard.get(0x0800));
    }

    @Test
    void aHandlerWithoutAUsableEtherTypeIsIgnoredWithTheReason() {
        assertEquals("frame handler " + ipv4.getClass().getName() + " ignored: service property "
                        + FrameHandler.ETHERTYPE_PROPERTY + " must be an Integer 0..0xFFFF, is 65536",
                whiteboard.add(ipv4, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x10000)));
        assertEquals("frame handler " + ipv4.getClass().getName() + " ignored: service property "
                        + FrameHandler.ETHERTYPE_PROPERTY + " must be an Integer 0..0xFFFF, is 0x0800",
                whiteboard.add(ipv4, Map.of(FrameHandler.ETHERTYPE_PROPERTY, "0x0800")));
        assertEquals(0, whiteboard.get(0x0800).length);
    }

    @Test
    void aBridgeOwnsItsLinksFramesOfItsEtherTypesAndOtherLinksKeepTheirHandlers() {
        FrameHandler host4 = (link, frame) -> { };
        FrameHandler host6 = (link, frame) -> { };
        FrameHandler bridge = (link, frame) -> { };
        whiteboard.forLink("ib0");
        whiteboard.add(host4, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x0800));
        whiteboard.add(host6, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x86DD));
        whiteboard.add(arp, Map.of(FrameHandler.ETHERTYPE_PROPERTY, 0x0806));
        for (int type : new int[] {0x0800, 0x86DD}) {
            whiteboard.add(bridge, Map.of(FrameHandler.ETHERTYPE_PROPERTY, type, FrameHandler.LINK_PROPERTY, "ib0",
                    FrameHandler.BRIDGE_PROPERTY, "tap0"));
        }

        assertArrayEquals(new FrameHandler[] {bridge}, whiteboard.get(0x0800), "IPv4 to the bridge alone");
        assertArrayEquals(new FrameHandler[] {bridge}, whiteboard.get(0x86DD), "IPv6 to the bridge alone");
        assertArrayEquals(new FrameHandler[] {arp}, whiteboard.get(0x0806), "ARP stays with its handler");
        assertEquals(2, whiteboard.all().length, "the end of a poll reaches the handlers of the link's frames");

        whiteboard.forLink("ib1");
        assertArrayEquals(new FrameHandler[] {host4}, whiteboard.get(0x0800), "ib1 is not bridged");

        whiteboard.forLink("ib0");
        whiteboard.remove(bridge);
        assertArrayEquals(new FrameHandler[] {host4}, whiteboard.get(0x0800), "the host again once the bridge is gone");
        assertArrayEquals(new FrameHandler[] {host6}, whiteboard.get(0x86DD));
    }
}
