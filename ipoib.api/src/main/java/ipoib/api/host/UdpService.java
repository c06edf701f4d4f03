package ipoib.api.host;

import org.osgi.annotation.versioning.ProviderType;

/** UDP over the host's interfaces (RFC 768), for embedding applications. */
@ProviderType
public interface UdpService {

    /**
     * Opens a socket on a local port of every interface.
     *
     * @param port 1..65535, or 0 for a free ephemeral port (49152..65535)
     * @param receiver called for each datagram to the port
     * @throws IllegalArgumentException for a port outside 0..65535 or a null receiver
     * @throws IllegalStateException when the port is in use (or no ephemeral port is free)
     */
    UdpSocket open(int port, UdpReceiver receiver);
}
