package ipoib.api.verbs;

/**
 * How to create a reliable-connected queue pair.
 *
 * @param sendCompletionQueue where send completions go
 * @param receiveCompletionQueue where receive completions go (may be the same queue)
 * @param sharedReceiveQueue the queue its receive buffers come from, or null for a receive queue of its own
 * @param sendQueueDepth outstanding sends (the transport's window), 1..65536
 * @param receiveQueueDepth posted receives of its own queue, 1..65536 (ignored with a shared receive queue)
 * @param pkeyIndex index into the port's P_Key table: the partition of the connection
 */
public record RcQueuePairConfig(CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue,
                                SharedReceiveQueue sharedReceiveQueue, int sendQueueDepth, int receiveQueueDepth,
                                int pkeyIndex) {

    /**
     * @throws IllegalArgumentException for a missing queue, or a depth or index out of range
     */
    public RcQueuePairConfig {
        if (sendCompletionQueue == null || receiveCompletionQueue == null) {
            throw new IllegalArgumentException("RC queue pair needs send and receive completion queues");
        }
        for (int depth : new int[] {sendQueueDepth, receiveQueueDepth}) {
            if (depth < 1 || depth > UdQueuePairConfig.MAX_QUEUE_DEPTH) {
                throw new IllegalArgumentException("invalid RC queue depth '" + depth + "': allowed 1.."
                        + UdQueuePairConfig.MAX_QUEUE_DEPTH);
            }
        }
        if (pkeyIndex < 0 || pkeyIndex > 0xFFFF) {
            throw new IllegalArgumentException("invalid pkeyIndex '" + pkeyIndex + "': allowed 0..65535");
        }
    }
}
