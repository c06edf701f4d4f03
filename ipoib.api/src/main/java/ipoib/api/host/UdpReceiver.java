package ipoib.api.host;

import org.osgi.annotation.versioning.ConsumerType;

/** Receives the datagrams of a {@link UdpSocket}. */
@ConsumerType
@FunctionalInterface
public interface UdpReceiver {

    /**
     * Called on the receiving link's thread for every datagram to the socket's port: do not
     * block, and copy what you keep (the datagram is a view of the receive buffer, valid only
     * during the call). Exceptions are counted and logged.
     */
    void received(UdpDatagram datagram);
}
