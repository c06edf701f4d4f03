package ipoib.api.verbs;

import ipoib.api.Qpn;
import java.util.function.Consumer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A reliable-connected queue pair (IBA 9.7, 10.2): messages to one peer arrive once, whole and in
 * order, or the send fails. The transport segments a message into packets of the path MTU,
 * acknowledges them, and retransmits on loss (go-back-N from the first unacknowledged PSN) until
 * the retry count is spent ({@link CompletionStatus#RETRY_EXCEEDED}); a receiver without a posted
 * buffer answers RNR and the sender waits and retries ({@link CompletionStatus#RNR_RETRY_EXCEEDED}).
 *
 * <p>State: created in INIT; {@link #readyToReceive} moves it to RTR, {@link #readyToSend} to RTS
 * (the attributes the CM negotiated); an error moves it to ERROR, where outstanding and new work
 * requests complete with {@link CompletionStatus#WORK_REQUEST_FLUSH_ERROR}. Receive completions
 * carry the message length; RC buffers have no GRH area.
 */
@ProviderType
public interface RcQueuePair extends AutoCloseable {

    /** The queue pair number the peer sends to. */
    Qpn qpn();

    /** INIT, RTR, RTS or ERROR. */
    QueuePairState state();

    /**
     * INIT → RTR.
     *
     * @throws VerbsException when the queue pair is not in INIT or the destination is unreachable
     */
    void readyToReceive(RcReceiveAttributes attributes);

    /**
     * RTR → RTS.
     *
     * @throws VerbsException when the queue pair is not in RTR
     */
    void readyToSend(RcSendAttributes attributes);

    /**
     * Posts a receive buffer of its own receive queue (not with a shared receive queue).
     *
     * @return false when the receive queue is full
     */
    boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length);

    /**
     * Posts a message for sending; does not block or allocate.
     *
     * @return false when the send queue (window) is full
     * @throws VerbsException when the queue pair is not in RTS (ERROR flushes instead)
     */
    boolean postSend(long workRequestId, MemoryRegion region, long offset, int length);

    /**
     * Subscribes to the queue pair's asynchronous events (IBA 11.6.3; verbs' QP events): communication
     * established, last WQE reached, and the errors that are not reported through a completion. The
     * listener runs on a provider thread, must not block, and must not throw (what it throws is
     * logged and ignored). A provider that raises no events says so by throwing here.
     *
     * @return a handle that ends the subscription when closed
     * @throws VerbsException when the provider does not report RC events
     */
    default AutoCloseable addEventListener(Consumer<RcQueuePairEvent> listener) {
        throw new VerbsException(this + ": this provider does not report RC queue pair events");
    }

    /** Moves the queue pair to ERROR: outstanding work requests are flushed. */
    void toError();

    /** Destroys the queue pair (flushing what is outstanding). */
    @Override
    void close();
}
