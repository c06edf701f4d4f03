package ipoib.verbs.fabric.internal;

/**
 * A queue pair whose completions a {@link FabricCompletionQueue} carries: UD and RC queue pairs
 * alike. The completion queue finds it by the {@code qp_num} of an {@code ibv_wc} and hands the
 * slot of the {@code wr_id} back to it (for an RC queue pair of a shared receive queue, a receive
 * slot is the shared queue's).
 */
interface CompletionOwner {

    /** The queue pair number its completions carry. */
    int queuePairNumber();

    /**
     * Gives back the slot of a completed work request.
     *
     * @param send whether the completion is of the send queue
     * @param slot the slot from the {@code wr_id}
     * @param id receives the caller's work-request id at index 0
     * @return false when the slot was not outstanding (already completed as a made-up flush)
     */
    boolean completed(boolean send, int slot, long[] id);

    /** A completion of its own with an error status other than a flush (the queue pair is in ERROR). */
    default void completedWithError() {
    }
}
