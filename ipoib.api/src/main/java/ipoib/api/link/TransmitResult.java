package ipoib.api.link;

/**
 * What became of a frame handed to a link or resolver. Every result but {@link #SENT} and
 * {@link #QUEUED} is a drop and is counted under its name.
 */
public enum TransmitResult {
    /** Posted to the queue pair. */
    SENT,
    /** Held in a bounded queue until a path or a join completes. */
    QUEUED,
    /** The link is not UP. */
    DROPPED_LINK_DOWN,
    /** Larger than the link MTU. */
    DROPPED_TOO_BIG,
    /** No free send buffer or the send queue is full. */
    DROPPED_NO_BUFFER,
    /** A bounded pending queue is full. */
    DROPPED_QUEUE_FULL,
    /**
     * A bounded table (e.g. a neighbour table) is full of entries that cannot be evicted.
     *
     * @since 2.0
     */
    DROPPED_TABLE_FULL,
    /** No path, no group, or resolution failed. */
    DROPPED_NO_ROUTE,
    /** The service that decides (resolver, multicast manager) is not there. */
    DROPPED_NO_RESOLVER;

    public boolean isDrop() {
        return this != SENT && this != QUEUED;
    }
}
