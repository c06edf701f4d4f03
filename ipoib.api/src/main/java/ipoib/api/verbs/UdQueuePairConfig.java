package ipoib.api.verbs;

import ipoib.api.QKey;

/**
 * How to create a UD queue pair.
 *
 * @param sendCompletionQueue where send completions go
 * @param receiveCompletionQueue where receive completions go (may be the same queue)
 * @param sendQueueDepth outstanding sends, 1..65536 (the design document's sq_depth)
 * @param receiveQueueDepth posted receives, 1..65536 (rq_depth)
 * @param pkeyIndex index into the port's P_Key table
 * @param qkey the Q_Key of the queue pair: received datagrams must carry it
 * @param privileged whether the consumer may use controlled Q_Keys (high bit set)
 */
public record UdQueuePairConfig(CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue,
                                int sendQueueDepth, int receiveQueueDepth, int pkeyIndex, QKey qkey,
                                boolean privileged) {

    /** Largest queue depth accepted by the SPI. */
    public static final int MAX_QUEUE_DEPTH = 65536;

    /**
     * @throws IllegalArgumentException for a missing queue or key, or a depth or index out of range
     */
    public UdQueuePairConfig {
        if (sendCompletionQueue == null || receiveCompletionQueue == null || qkey == null) {
            throw new IllegalArgumentException("UD queue pair needs send and receive completion queues and a Q_Key");
        }
        checkDepth("sendQueueDepth", sendQueueDepth);
        checkDepth("receiveQueueDepth", receiveQueueDepth);
        if (pkeyIndex < 0 || pkeyIndex > 0xFFFF) {
            throw new IllegalArgumentException("invalid pkeyIndex '" + pkeyIndex + "': allowed 0..65535");
        }
    }

    private static void checkDepth(String name, int depth) {
        if (depth < 1 || depth > MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("invalid " + name + " '" + depth + "': allowed 1.." + MAX_QUEUE_DEPTH);
        }
    }
}
