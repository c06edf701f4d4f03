package ipoib.api.resolve;

import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The send path to one next hop on one link, for a sender that sends there often (a connected
 * socket): {@link #send} does for every frame what
 * {@link NeighbourResolver#send(ipoib.api.link.IpoibLink, long, long, int, MemorySegment)} does
 * for that next hop — resolution, queueing, drops, counters — and may skip the table look-up
 * while the neighbour entry it found last can send. A change of the entry (flushed, removed,
 * failed, resolved again, its link down) is followed from the next frame on. Never blocks;
 * allocates nothing for a resolved neighbour; safe for several threads.
 *
 * @since 1.2
 */
@ProviderType
public interface NeighbourSender {

    /** Sends an IP packet to the next hop; see {@link NeighbourResolver#send}. */
    TransmitResult send(int etherType, MemorySegment packet);
}
