package ipoib.api.verbs;

/**
 * An asynchronous event of a reliable-connected queue pair (IBA 11.6.3.1; libibverbs'
 * {@code ibv_event_type} for QPs). Errors that a work completion reports (retry exceeded, a NAK)
 * are not events; these are the ones no completion carries.
 *
 * @param queuePair the queue pair
 * @param type what happened
 */
public record RcQueuePairEvent(RcQueuePair queuePair, Type type) {

    public enum Type {
        /**
         * A packet arrived while the queue pair was in RTR ({@code IBV_EVENT_COMM_EST}): the peer
         * is sending, so the connection is up even if the CM's RTU was lost; the CM treats it as
         * the RTU.
         */
        COMMUNICATION_ESTABLISHED,
        /**
         * A queue pair of a shared receive queue is in ERROR and will take no more buffers from it
         * ({@code IBV_EVENT_QP_LAST_WQE_REACHED}): its receives are drained and it can be destroyed
         * (Linux's ipoib_cm moves the connection to its flush list on this event).
         */
        LAST_WQE_REACHED,
        /** A catastrophic error moved the queue pair to ERROR ({@code IBV_EVENT_QP_FATAL}). */
        FATAL,
        /** An invalid request local work queue error moved it to ERROR ({@code IBV_EVENT_QP_REQ_ERR}). */
        REQUEST_ERROR,
        /** A local access violation moved it to ERROR ({@code IBV_EVENT_QP_ACCESS_ERR}). */
        ACCESS_ERROR
    }
}
