package ipoib.link.internal.cm;

import ipoib.api.Gid;
import ipoib.api.verbs.RcQueuePair;
import ipoib.cm.CmConnection;
import ipoib.link.internal.LinkResources;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The connections of one interface's connected mode, both sides, and the one lock under which
 * their state changes: this object's monitor, held by {@link CmActiveSide}, {@link CmFrameSender}
 * (frames held while a connection is set up), {@link CmPassiveSide} (through {@link #register}) and
 * {@link ConnectedMode} (idle reaping, teardown). The receive thread and the send path read the
 * connections without it: they scan a copy-on-write array by local QPN.
 *
 * <p>Lock rule: nothing that holds this lock waits for the port's CM thread, and the CM thread
 * never waits for the link's control thread (a CM callback that waited on the control thread while
 * the control thread waited on the CM thread would hang both). Calls into the CM agent made under
 * the lock ({@code disconnect}) only post to the CM thread.
 */
final class CmConnectionTable {
    private final CmBuffers buffers;

    // Guarded by this.
    private final List<CmLinkConnection> connections = new ArrayList<>();
    /** What the receive thread scans by local QPN (a copy made on every change: no lock, no allocation per packet). */
    private volatile CmLinkConnection[] byQpn = new CmLinkConnection[0];
    private volatile boolean open = true;

    CmConnectionTable(CmBuffers buffers) {
        this.buffers = buffers;
    }

    /** False once connected mode is closing: no connection is added any more. */
    boolean open() {
        return open;
    }

    /** Holds this: adds a connection (the caller checked {@link #open()} under the lock). */
    void add(CmLinkConnection c) {
        connections.add(c);
    }

    /** Adds a passive connection; false when connected mode is closing. */
    synchronized boolean register(CmLinkConnection c) {
        if (!open) {
            return false;
        }
        connections.add(c);
        publish();
        return true;
    }

    /**
     * The connection is over (the peer disconnected, or it failed). A connection that FAILED is
     * over already and stays so until its retry time: the DREP of the disconnect that followed
     * its failure ends nothing more, else the peer's next frame would set up a connection at once.
     */
    synchronized void end(CmLinkConnection c, String why) {
        if (c.state != CmLinkConnection.State.FAILED) {
            discard(c, why);
        }
    }

    /** Holds this: the connection is over; its queue pair destroyed, its held frames freed. */
    void discard(CmLinkConnection c, String why) {
        if (c.state == CmLinkConnection.State.CLOSED) {
            return;
        }
        c.state = CmLinkConnection.State.CLOSED;
        c.why = why;
        for (int i = 0; i < c.pendingCount; i++) {
            buffers.release(c.pendingBuffer[i]);
        }
        c.pendingCount = 0;
        destroyQp(c);
        connections.remove(c);
        if (c.path != null && c.path.connection == c) {
            c.path.connection = null;
        }
        publish();
    }

    static void destroyQp(CmLinkConnection c) {
        RcQueuePair qp = c.qp;
        if (qp != null) {
            LinkResources.closeQuietly(qp);
        }
    }

    /** Holds this: a connection got its queue pair (a new local QPN for the receive thread to find). */
    void publish() {
        byQpn = connections.stream().filter(c -> c.localQpn != 0).toArray(CmLinkConnection[]::new);
    }

    /** The connection whose RC queue pair has that number (no lock, no allocation: the receive thread's lookup). */
    CmLinkConnection byLocalQpn(int qpn) {
        for (CmLinkConnection c : byQpn) {
            if (c.localQpn == qpn) {
                return c;
            }
        }
        return null;
    }

    /** Whether frames to this peer go over an established connection now. */
    boolean connectedTo(Gid peer, int peerUdQpn) {
        for (CmLinkConnection c : byQpn) {
            if (c.active && c.state == CmLinkConnection.State.UP && c.peerUdQpn == peerUdQpn && c.peerGid.equals(peer)) {
                return true;
            }
        }
        return false;
    }

    /** The connections, for {@code ipoib:cm}. */
    synchronized List<CmLinkConnection> snapshot() {
        return List.copyOf(connections);
    }

    /**
     * Discards the connections UP without traffic for more than {@code idleNanos} (counting them in
     * {@code reaped}) and forgets the failed ones their path no longer holds; returns the CM
     * connections to disconnect, which the caller does without the lock.
     */
    synchronized List<CmConnection> removeIdle(long now, long idleNanos, LongAdder reaped) {
        List<CmConnection> disconnect = new ArrayList<>();
        for (CmLinkConnection c : new ArrayList<>(connections)) {
            if (c.state == CmLinkConnection.State.UP && now - c.lastUsedNanos > idleNanos) {
                reaped.increment();
                if (c.cm != null) {
                    disconnect.add(c.cm);
                }
                discard(c, "idle for " + TimeUnit.NANOSECONDS.toSeconds(now - c.lastUsedNanos) + " s");
            } else if (c.state == CmLinkConnection.State.FAILED && c.path != null && c.path.connection != c) {
                connections.remove(c);
            }
        }
        return disconnect;
    }

    /**
     * Closes the table: no connection is added any more, every one is discarded; returns the CM
     * connections that were UP (to disconnect without the lock), or null when it was closed already.
     */
    synchronized List<CmConnection> close(String why) {
        if (!open) {
            return null;
        }
        open = false;
        List<CmConnection> disconnect = new ArrayList<>();
        for (CmLinkConnection c : new ArrayList<>(connections)) {
            if (c.cm != null && c.state == CmLinkConnection.State.UP) {
                disconnect.add(c.cm);
            }
            discard(c, why);
        }
        return disconnect;
    }
}
