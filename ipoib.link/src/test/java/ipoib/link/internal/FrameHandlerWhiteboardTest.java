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
}
