package ipoib.api.sa;

import org.osgi.annotation.versioning.ProviderType;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Sends and receives subnet administration MADs (IBA 13.4) on one port: to the SM's LID on QP1
 * with the GSI Q_Key. The transport is a datagram service: it does not retry, match or time out;
 * the client does.
 */
@ProviderType
public interface MadTransport {

    /** Length of a MAD (IBA 13.4.2). */
    int MAD_LENGTH = 256;

    /**
     * Sends one MAD to the subnet administrator. Does not block on the network.
     *
     * @param mad exactly {@value #MAD_LENGTH} octets between position and limit; read before the
     *            method returns, so the caller may reuse it
     * @throws ipoib.api.verbs.VerbsException when the port cannot send (no SM, port down, closed)
     */
    void send(ByteBuffer mad);

    /**
     * Sets the receiver of every MAD of the SA class that arrives on the port: responses and
     * reports (Notices). It runs on the transport's thread; the buffer is valid only during the
     * call. One receiver at a time; a new one replaces the old, null removes it.
     */
    void setReceiver(Consumer<ByteBuffer> receiver);
}
