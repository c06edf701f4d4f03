package ipoib.cm;

import ipoib.codec.cm.CmMad;
import ipoib.codec.cm.CmPrivateData;
import ipoib.runtime.Cancellable;
import java.util.concurrent.CompletableFuture;

/**
 * One connection as the agent tracks it (IBA 12.9 states, RC only). Its fields change on the
 * agent's control loop only; the accessors are for that loop and for tests.
 */
public final class CmConnection {

    /** The states of IBA figures 98–99 that an RC connection passes. */
    public enum State {
        REQ_SENT, MRA_RECEIVED, REP_SENT, ESTABLISHED, DREQ_SENT, TIME_WAIT, CLOSED
    }

    final boolean active;
    final int localCommId;
    final CmEndpoint peer;
    final long serviceId;
    int remoteCommId;
    int localQpn;
    int remoteQpn;
    int remoteStartingPsn;
    int peerResponseTimeout;
    State state;
    CmPrivateData peerPrivateData = CmPrivateData.empty();
    /** The message retransmitted on timeout, with its TID. */
    CmMad lastSent;
    int sends;
    Cancellable timer = Cancellable.NONE;
    final CompletableFuture<CmConnection> established = new CompletableFuture<>();
    final CompletableFuture<CmConnection> closed = new CompletableFuture<>();

    CmConnection(boolean active, int localCommId, CmEndpoint peer, long serviceId, State state) {
        this.active = active;
        this.localCommId = localCommId;
        this.peer = peer;
        this.serviceId = serviceId;
        this.state = state;
    }

    public boolean isActive() {
        return active;
    }

    public State state() {
        return state;
    }

    public int localCommId() {
        return localCommId;
    }

    public int remoteCommId() {
        return remoteCommId;
    }

    public CmEndpoint peer() {
        return peer;
    }

    public long serviceId() {
        return serviceId;
    }

    /** The local RC QP the connection drives. */
    public int localQpn() {
        return localQpn;
    }

    /** The peer's RC QP: the destination of RTR. */
    public int remoteQpn() {
        return remoteQpn;
    }

    /** The first PSN the peer sends: the receive PSN of RTR. */
    public int remoteStartingPsn() {
        return remoteStartingPsn;
    }

    /** The private data of the peer's REQ (passive side) or REP (active side). */
    public CmPrivateData peerPrivateData() {
        return peerPrivateData;
    }

    /** Completes when the connection is closed, by either side or by a failure. */
    public CompletableFuture<CmConnection> whenClosed() {
        return closed.copy();
    }

    @Override
    public String toString() {
        return (active ? "active" : "passive") + " connection " + Integer.toUnsignedString(localCommId, 16) + "/"
                + Integer.toUnsignedString(remoteCommId, 16) + " to LID " + peer.lid() + " QPN "
                + Integer.toHexString(remoteQpn) + " " + state;
    }
}
