package ipoib.api.link;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Gid;
import java.lang.foreign.MemorySegment;

/**
 * A received frame as seen by a {@link FrameHandler}. It is a view of the link's receive buffer:
 * valid only during {@link FrameHandler#onFrame}, after which the buffer is posted again. Copy
 * what you keep.
 *
 * <p>The payload (the packet after the 4-octet encapsulation header) is
 * {@code buffer()[payloadOffset(), payloadOffset() + payloadLength())}; reading it there
 * allocates nothing, {@link #payload()} is a convenience that slices.
 */
@ProviderType
public interface ReceivedFrame {

    /** The EtherType of the encapsulation header. */
    int etherType();

    /**
     * The receive buffer holding this frame alone, as a read-only segment (writing throws
     * {@link UnsupportedOperationException}); the payload starts at {@link #payloadOffset()}.
     */
    MemorySegment buffer();

    /** Offset of the payload in {@link #buffer()}. */
    long payloadOffset();

    /** Octets of payload. */
    int payloadLength();

    /** The payload as its own segment (allocates a slice). */
    default MemorySegment payload() {
        return buffer().asSlice(payloadOffset(), payloadLength());
    }

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

    /** Whether the frame arrived through a multicast group (its GRH names a multicast DGID). */
    boolean multicast();
}
