package ipoib.link.internal.cm;

import ipoib.api.Gid;
import ipoib.api.verbs.RcQueuePair;
import ipoib.cm.CmConnection;
import ipoib.link.internal.PathEntry;
import ipoib.runtime.JsonText;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One reliable connection of a connected-mode interface, one direction (Linux's
 * {@code struct ipoib_cm_tx} for the active side, {@code struct ipoib_cm_rx} for the passive
 * side, drivers/infiniband/ulp/ipoib/ipoib.h): its RC queue pair, the peer's UD QPN (what
 * identifies the peer's interface), the MTU the peer receives, the time of its last packet for
 * idle reaping, and its counters. The state changes on the port's CM thread and the link's
 * control thread under the lock of {@link CmConnectionTable}; the data path reads it without locks.
 */
public final class CmLinkConnection {

    /** The life of a connection. */
    public enum State {
        /** The REQ is out (active) or the REP is out (passive): the active side queues frames. */
        CONNECTING,
        /** Established: frames go over the queue pair. */
        UP,
        /** Rejected or failed: frames go over UD until {@link #retryAtNanos}. */
        FAILED,
        /** Torn down (idle, disconnected, the link went down). */
        CLOSED
    }

    /** Frames an active connection holds while it is set up (Linux queues a few per neighbour too). */
    static final int PENDING = 8;

    final boolean active;
    final ConnectedMode owner;
    /** The path entry that holds it (active side), null on the passive side. */
    final PathEntry path;
    final int peerUdQpn;
    final int peerLid;
    final Gid peerGid;
    final long createdNanos;

    public volatile State state = State.CONNECTING;
    volatile RcQueuePair qp;
    /** The local RC QPN the data path matches completions with; 0 until the queue pair exists. */
    volatile int localQpn;
    volatile int remoteQpn;
    /** The first PSN this side sends (its REQ's or REP's starting PSN) and the first it receives. */
    volatile int sendPsn;
    volatile int receivePsn;
    /** Octets of one frame (header included) the peer receives (its private data's MTU). */
    volatile int sendLimit;
    volatile long lastUsedNanos;
    volatile long retryAtNanos;
    volatile String why = "";
    /** REQ sent to RTU sent, nanoseconds; -1 until established. */
    public volatile long setupNanos = -1;
    volatile CmConnection cm;

    final LongAdder txPackets = new LongAdder();
    final LongAdder txBytes = new LongAdder();
    final LongAdder rxPackets = new LongAdder();
    final LongAdder rxBytes = new LongAdder();
    final LongAdder txErrors = new LongAdder();

    // Frames held while CONNECTING: send-buffer indices and lengths, guarded by the owner.
    final int[] pendingBuffer = new int[PENDING];
    final int[] pendingLength = new int[PENDING];
    int pendingCount;

    CmLinkConnection(boolean active, ConnectedMode owner, PathEntry path, int peerUdQpn, int peerLid, Gid peerGid,
                     long now) {
        this.active = active;
        this.owner = owner;
        this.path = path;
        this.peerUdQpn = peerUdQpn;
        this.peerLid = peerLid;
        this.peerGid = peerGid;
        this.createdNanos = now;
        this.lastUsedNanos = now;
    }

    /** The fields of {@link #describe} for {@code ipoib:cm --json}; setupMillis null until established. */
    public Map<String, Object> record(long now) {
        return JsonText.record("direction", active ? "tx" : "rx", "state", state,
                "peerQpn", String.format("0x%06x", peerUdQpn), "peerLid", peerLid, "peerGid", peerGid,
                "localRcQpn", String.format("0x%06x", localQpn), "remoteRcQpn", String.format("0x%06x", remoteQpn),
                "sendPsn", String.format("0x%06x", sendPsn), "receivePsn", String.format("0x%06x", receivePsn),
                "mtu", Math.max(0, sendLimit - 4), "idleSeconds", (now - lastUsedNanos) / 1_000_000_000L,
                "txPackets", txPackets.sum(), "txBytes", txBytes.sum(), "rxPackets", rxPackets.sum(),
                "rxBytes", rxBytes.sum(), "errors", txErrors.sum(), "setupMillis", setupNanos >= 0 ? setupNanos / 1e6 : null,
                "why", why == null || why.isEmpty() ? null : why); // null where the text shows none
    }

    /** One line of {@code ipoib:cm}, as Linux's debug files list a connection. */
    public String describe(long now) {
        return String.format("%s %-10s peer qpn 0x%06x lid %d gid %s  rc qpn 0x%06x -> 0x%06x  psn 0x%06x/0x%06x"
                        + "  mtu %d  idle %d s  tx %d/%d B  rx %d/%d B  errors %d%s%s",
                active ? "tx" : "rx", state, peerUdQpn, peerLid, peerGid, localQpn, remoteQpn, sendPsn, receivePsn,
                Math.max(0, sendLimit - 4), (now - lastUsedNanos) / 1_000_000_000L,
                txPackets.sum(), txBytes.sum(), rxPackets.sum(), rxBytes.sum(), txErrors.sum(),
                setupNanos >= 0 ? String.format("  setup %.3f ms", setupNanos / 1e6) : "",
                why.isEmpty() ? "" : "  (" + why + ")");
    }
}
