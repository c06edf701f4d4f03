package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A shared receive queue (IBA 10.2.9.5): receive buffers that several reliable-connected queue
 * pairs consume, so that a connected-mode interface posts one pool for all its connections (as
 * Linux's ipoib_cm does when the HCA has SRQs). RC receive buffers have no GRH area: a message is
 * placed from the buffer's first octet.
 */
@ProviderType
public interface SharedReceiveQueue extends AutoCloseable {

    /** Buffers the queue holds at most. */
    int capacity();

    /**
     * Posts a receive buffer; does not block or allocate.
     *
     * @return false when the queue is full
     * @throws VerbsException for a closed queue or a buffer outside its region
     */
    boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length);

    /**
     * Destroys the queue. Buffers still posted are given back without completions, as
     * {@code ibv_destroy_srq} does (a queue pair going to ERROR does not flush the SRQ's buffers):
     * the consumer owns their memory again once this returns.
     *
     * @throws VerbsException when the provider refuses because queue pairs still use it (verbs'
     *     ibv_destroy_srq does: close them first)
     */
    @Override
    void close();
}
