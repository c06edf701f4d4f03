package ipoib.api.host;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A UDP endpoint bound to a local port on every interface. Sending never blocks; the payload is
 * copied before a send method returns. Datagrams are not fragmented: one that does not fit the
 * route's MTU is refused with {@link IllegalArgumentException}.
 */
@ProviderType
public interface UdpSocket extends AutoCloseable {

    /** The local port. */
    int localPort();

    /**
     * Sends a datagram to {@code destination}:{@code port}, choosing the interface by
     * {@link IpHost#route} (or {@code linkName} when not null). Broadcast (255.255.255.255 or
     * the subnet's broadcast address) goes to the link's broadcast group.
     *
     * @return what became of it; drops are counted
     * @throws IllegalArgumentException for a port outside 1..65535, or a datagram larger than
     *     the MTU allows, naming its size, the MTU and the interface
     */
    TransmitResult send(String linkName, InetAddress destination, int port, MemorySegment payload);

    /** {@link #send(String, InetAddress, int, MemorySegment)} with the interface chosen by route. */
    default TransmitResult send(InetAddress destination, int port, MemorySegment payload) {
        return send(null, destination, port, payload);
    }

    /**
     * {@link #send(InetAddress, int, MemorySegment)} of the whole array.
     *
     * @since 1.3
     */
    default TransmitResult send(InetAddress destination, int port, byte[] payload) {
        return send(null, destination, port, MemorySegment.ofArray(payload));
    }

    /**
     * {@link #send(InetAddress, int, MemorySegment)} of the buffer's octets from its position to
     * its limit; the position and the limit are left as they were.
     *
     * @since 1.3
     */
    default TransmitResult send(InetAddress destination, int port, ByteBuffer payload) {
        return send(null, destination, port, MemorySegment.ofBuffer(payload));
    }

    /**
     * Fixes the destination of {@link #send(MemorySegment)}, which then sends without a routing
     * decision per datagram and without allocating. When the routes change (an address, an
     * interface or its MTU), the next datagram is routed again; while there is no route it is
     * dropped as {@link TransmitResult#DROPPED_NO_ROUTE}.
     *
     * @throws IllegalArgumentException for a port outside 1..65535
     * @throws IllegalStateException when there is no route to the destination
     */
    void connect(String linkName, InetAddress destination, int port);

    /**
     * Sends to the connected destination.
     *
     * @throws IllegalStateException when the socket is not connected
     * @throws IllegalArgumentException for a datagram larger than the MTU allows
     */
    TransmitResult send(MemorySegment payload);

    /**
     * {@link #send(MemorySegment)} of the whole array (the stack's implementation copies it
     * without allocating).
     *
     * @since 1.3
     */
    default TransmitResult send(byte[] payload) {
        return send(MemorySegment.ofArray(payload));
    }

    /**
     * {@link #send(MemorySegment)} of the buffer's octets from its position to its limit (heap or
     * direct); the position and the limit are left as they were, so a buffer can be sent again.
     *
     * @since 1.3
     */
    default TransmitResult send(ByteBuffer payload) {
        return send(MemorySegment.ofBuffer(payload));
    }

    /**
     * Sends the first {@code count} payloads to the connected destination as one burst (as
     * {@code sendmmsg(2)} does for several datagrams): on a link that supports it the frames are
     * posted as one list ({@link ipoib.api.link.IpoibLink#beginBurst()}), not one post each. Each
     * datagram is checked and counted as {@link #send(MemorySegment)} does; a drop does not end
     * the burst.
     *
     * @return how many were sent or queued (not dropped)
     * @throws IllegalStateException when the socket is not connected
     * @throws IllegalArgumentException for {@code count} outside 0..payloads.length, or a datagram
     *     larger than the MTU allows (the datagrams before it are sent)
     * @since 1.2
     */
    default int send(MemorySegment[] payloads, int count) {
        if (count < 0 || count > payloads.length) {
            throw new IllegalArgumentException("invalid burst of " + count + " datagrams: allowed 0.."
                    + payloads.length);
        }
        int sent = 0;
        for (int i = 0; i < count; i++) {
            if (!send(payloads[i]).isDrop()) {
                sent++;
            }
        }
        return sent;
    }

    /** Releases the port; the receiver is called no more. */
    @Override
    void close();
}
