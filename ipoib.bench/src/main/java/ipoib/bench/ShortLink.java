package ipoib.bench;

import ipoib.api.Gid;
import ipoib.api.Qpn;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.LinkPath;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An UP link without a fabric: a unicast frame is copied into one receive buffer and, when a
 * peer is set, handed on the sending thread to the peer's handler as a received frame of the
 * peer link (what a link's receive thread does after the fabric). What is measured over it is
 * the host layer's own cost per datagram, on one thread, without the scheduling of two.
 * Broadcasts and multicasts are dropped (SENT).
 */
final class ShortLink extends NullLink {
    private final MemorySegment receiveBuffer = Arena.ofAuto().allocate(4096);
    private final Frame frame = new Frame();
    /** The receiving side: its link and its handler of the frame's EtherType; null to only copy. */
    volatile ShortLink peer;
    volatile FrameHandler peerHandler;
    long unicasts;

    ShortLink(String name, long guid, int qpn) {
        super(name, guid, qpn);
    }

    private final class Frame implements ReceivedFrame {
        int etherType;
        int length;

        @Override public int etherType() { return etherType; }
        @Override public MemorySegment buffer() { return receiveBuffer; }
        @Override public long payloadOffset() { return 4; }
        @Override public int payloadLength() { return length; }
        @Override public int sourceQpn() { return qpn.value(); }
        @Override public int sourceLid() { return 1; }
        @Override public boolean grhPresent() { return false; }
        @Override public Gid sourceGid() { return null; }
        @Override public Gid destinationGid() { return null; }
        @Override public boolean multicast() { return false; }
    }

    @Override
    public TransmitResult sendUnicast(LinkPath path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        unicasts++;
        ShortLink to = peer;
        if (to == null) {
            MemorySegment.copy(payload, 0, receiveBuffer, 4, payload.byteSize());
            return TransmitResult.SENT;
        }
        MemorySegment.copy(payload, 0, to.receiveBuffer, 4, payload.byteSize());
        to.frame.etherType = etherType;
        to.frame.length = (int) payload.byteSize();
        peerHandler.onFrame(to, to.frame);
        return TransmitResult.SENT;
    }

    /** Hands the frame in the receive buffer ({@code length} octets, the last one sent here) to a handler again. */
    void receiveAgain(FrameHandler handler, int etherType, int length) {
        frame.etherType = etherType;
        frame.length = length;
        handler.onFrame(this, frame);
    }
}
