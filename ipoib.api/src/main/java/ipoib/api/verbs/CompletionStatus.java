package ipoib.api.verbs;

/** Work completion status (IBA 11.4.2.1; libibverbs' {@code ibv_wc_status}). */
public enum CompletionStatus {
    SUCCESS,
    /** The datagram is longer than the path MTU or the receive buffer. */
    LOCAL_LENGTH_ERROR,
    LOCAL_QP_OPERATION_ERROR,
    LOCAL_PROTECTION_ERROR,
    /** The queue pair went to ERROR or was destroyed with this request outstanding. */
    WORK_REQUEST_FLUSH_ERROR,
    GENERAL_ERROR,
    /** RC: the responder refused the request as invalid (e.g. a message longer than its receive buffer). */
    REMOTE_INVALID_REQUEST_ERROR,
    /** RC: no acknowledgement after the retry count (the peer is gone or the path is broken). */
    RETRY_EXCEEDED,
    /** RC: the responder had no receive buffer posted for longer than the RNR retry count allows. */
    RNR_RETRY_EXCEEDED,
    /** RC: the responder refused an access to its memory (a NAK-Remote Access Error, IBA 9.7.5.2.8). */
    REMOTE_ACCESS_ERROR,
    /** RC: the responder could not complete the operation, e.g. its receive buffer failed a protection check (NAK-Remote Operational Error). */
    REMOTE_OPERATION_ERROR
}
