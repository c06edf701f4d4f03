package ipoib.api.link;

import ipoib.api.Gid;
import java.lang.foreign.MemorySegment;

/**
 * A received frame as seen by a {@link FrameHandler}. It is a view of the link's receive buffer:
 * valid only during {@link FrameHandler#onFrame}, after which the buffer is posted again. Copy
 * what you keep.
 */
public interface ReceivedFrame {

    /** The EtherType of the encapsulation header. */
    int etherType();

    /** The payload after the 4-octet header (read-only view). */
    MemorySegment payload();

    /** The sender's QPN. */
    int sourceQpn();

    /** The sender's LID. */
    int sourceLid();

    /** Whether the datagram carried a GRH (always for multicast). */
    boolean grhPresent();

    /** The sender's GID from the GRH, or null without GRH. */
    Gid sourceGid();

    /** The destination GID from the GRH (the MGID for multicast), or null without GRH. */
    Gid destinationGid();
}
