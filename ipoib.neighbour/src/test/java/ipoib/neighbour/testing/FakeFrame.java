package ipoib.neighbour.testing;

import ipoib.api.Gid;
import ipoib.api.link.ReceivedFrame;
import java.lang.foreign.MemorySegment;

/** A received frame as a link's receive thread hands it to a handler: the whole buffer is the payload, read-only. */
public record FakeFrame(int etherType, MemorySegment payloadBuffer, int sourceQpn, boolean multicast)
        implements ReceivedFrame {
    @Override public MemorySegment buffer() { return payloadBuffer.asReadOnly(); }
    @Override public long payloadOffset() { return 0; }
    @Override public int payloadLength() { return (int) payloadBuffer.byteSize(); }
    @Override public int sourceLid() { return 2; }
    @Override public boolean grhPresent() { return false; }
    @Override public Gid sourceGid() { return null; }
    @Override public Gid destinationGid() { return null; }
}
