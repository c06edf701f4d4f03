package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.QKey;
import ipoib.api.Qpn;

/**
 * An unreliable-datagram queue pair (IBA 9.8, 10.2).
 *
 * <p>Receive semantics (IBA 11.4.1.2): every receive buffer starts with a
 * {@value #GRH_AREA_LENGTH}-octet area where the GRH is placed when the datagram carried one;
 * the completion says whether it did ({@link WorkCompletions#grhPresent(int)}), and its byte
 * length counts the GRH area. Datagrams whose Q_Key differs from the queue pair's are dropped.
 *
 * <p>Data-path methods do not block and do not allocate. They return {@code false} when the
 * work queue is full (the caller counts the drop); misuse (a closed queue pair, a buffer outside
 * its region) throws {@link VerbsException}.
 */
@ProviderType
public interface UdQueuePair extends AutoCloseable {

    /** Octets reserved for the GRH at the start of every receive buffer. */
    int GRH_AREA_LENGTH = 40;

    /** The queue pair number peers send to. */
    Qpn qpn();

    /** The Q_Key received datagrams must carry. */
    QKey qkey();

    /** The current state; ERROR after a fatal error or when the port went away. */
    QueuePairState state();

    /**
     * Posts a receive buffer.
     *
     * @param workRequestId returned in the completion
     * @param region the registered memory holding the buffer
     * @param offset offset of the buffer in the region
     * @param length buffer length, at least {@value #GRH_AREA_LENGTH} + the largest payload expected
     * @return false when the receive queue is full
     */
    boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length);

    /**
     * Posts a datagram for sending.
     *
     * @param workRequestId returned in the completion
     * @param region the registered memory holding the datagram
     * @param offset offset of the datagram in the region
     * @param length datagram length; longer than the path MTU completes with
     *               {@link CompletionStatus#LOCAL_LENGTH_ERROR}
     * @param destination where to send
     * @param remoteQpn the destination queue pair ({@link Qpn#MULTICAST} for a group)
     * @param remoteQkey the destination's Q_Key
     * @return false when the send queue is full
     */
    boolean postSend(long workRequestId, MemoryRegion region, long offset, int length,
                     AddressHandle destination, Qpn remoteQpn, QKey remoteQkey);

    /**
     * Posts a list of receive buffers in order, as {@code ibv_post_recv} takes a chain: one call
     * for a burst of buffers (the receive thread re-posts what it consumed in one go). Does not
     * block or allocate, and leaves the list as it was (the caller clears it or
     * {@linkplain ReceiveWorkRequests#removeFirst removes} what was posted).
     *
     * @return how many were posted, from the first: fewer than the list's count when the receive
     *         queue filled up, or when a later request was refused (posting the rest again throws
     *         for it)
     * @throws VerbsException when the first request is refused (as the single post would refuse it)
     * @since 1.2
     */
    default int postReceive(ReceiveWorkRequests requests) {
        int n = requests.count();
        for (int i = 0; i < n; i++) {
            try {
                if (!postReceive(requests.workRequestId(i), requests.region(i), requests.offset(i),
                        requests.length(i))) {
                    return i;
                }
            } catch (VerbsException e) {
                if (i == 0) {
                    throw e;
                }
                return i;
            }
        }
        return n;
    }

    /**
     * Posts a list of datagrams in order, as {@code ibv_post_send} takes a chain: a burst of
     * frames becomes one call (one doorbell on hardware). Does not block or allocate, and leaves
     * the list as it was.
     *
     * @return how many were posted, from the first: fewer than the list's count when the send
     *         queue filled up, or when a later request was refused (posting the rest again throws
     *         for it)
     * @throws VerbsException when the first request is refused (as the single post would refuse it)
     * @since 1.2
     */
    default int postSend(SendWorkRequests requests) {
        int n = requests.count();
        for (int i = 0; i < n; i++) {
            try {
                if (!postSend(requests.workRequestId(i), requests.region(i), requests.offset(i), requests.length(i),
                        requests.destination(i), requests.remoteQpn(i), requests.remoteQkey(i))) {
                    return i;
                }
            } catch (VerbsException e) {
                if (i == 0) {
                    throw e;
                }
                return i;
            }
        }
        return n;
    }

    /**
     * Attaches the queue pair to a multicast group, so that it receives the group's datagrams.
     * The port must have joined the group through the subnet administrator first.
     */
    void attachMulticast(Gid mgid, Lid mlid);

    /** Detaches the queue pair from a multicast group. */
    void detachMulticast(Gid mgid, Lid mlid);

    /** Destroys the queue pair; outstanding work requests complete with a flush error. */
    @Override
    void close();
}
