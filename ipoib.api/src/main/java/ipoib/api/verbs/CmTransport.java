package ipoib.api.verbs;

import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ConsumerType;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The communication-management MADs (class 0x07, IBA 12.6) of one port: sent to a peer port's
 * QP1 by LID with the GSI Q_Key, received from any port's QP1. A datagram service like
 * {@link ipoib.api.sa.MadTransport}: no retry, no matching, no timeout (the CM agent does those).
 * One agent per port (IBA 12.9: the CM of a port), so one receiver at a time.
 */
@ProviderType
public interface CmTransport {

    /** Length of a MAD (IBA 13.4.2). */
    int MAD_LENGTH = 256;

    /** The receiver of every CM MAD that arrives on the port. */
    @ConsumerType
    @FunctionalInterface
    interface Receiver {
        /**
         * One MAD, valid only during the call; runs on a provider thread and must not block.
         *
         * @param sourceLid the LID of the port that sent it (the LRH's SLID)
         */
        void onMad(int sourceLid, ByteBuffer mad);
    }

    /**
     * Sends one MAD to the CM of the port with that LID. Does not block on the network.
     *
     * @param mad exactly {@value #MAD_LENGTH} octets between position and limit, read before the method returns
     * @throws VerbsException when the port cannot send (down, closed) or the MAD is not 256 octets
     */
    void send(int destinationLid, ByteBuffer mad);

    /**
     * Sets the receiver of the port's CM MADs; null removes it (MADs that arrive then are dropped,
     * as a port without a CM agent drops them).
     *
     * @throws IllegalStateException when another receiver is set: a port has one CM agent
     */
    void setReceiver(Receiver receiver);
}
