package ipoib.api.host;

import org.osgi.annotation.versioning.ProviderType;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;

/** A received UDP datagram, valid only during {@link UdpReceiver#received}. */
@ProviderType
public interface UdpDatagram {

    /** The interface it arrived on. */
    String link();

    /** The sender's address (allocates). */
    InetAddress source();

    int sourcePort();

    /** The destination address: one of the interface's, or a broadcast or multicast address (allocates). */
    InetAddress destination();

    int destinationPort();

    /** The receive buffer holding the payload. */
    MemorySegment buffer();

    /** Offset of the payload in {@link #buffer()}. */
    long payloadOffset();

    /** Octets of payload. */
    int payloadLength();

    /** The payload as its own segment (allocates a slice). */
    default MemorySegment payload() {
        return buffer().asSlice(payloadOffset(), payloadLength());
    }
}
