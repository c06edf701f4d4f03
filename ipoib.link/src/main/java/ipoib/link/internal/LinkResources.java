package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.runtime.Clock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The verbs resources of one UP period of a link and its send path: the completion queues, the UD
 * queue pair, one registered block of send and receive buffers, the broadcast and multicast
 * address handles, the path cache and the handle reaper; the receive side is {@link ReceiveLoop}. Created when the broadcast join succeeded, closed when the link goes
 * down; nothing here is reused across periods, so a stale sender can only fail, never corrupt.
 */
final class LinkResources {
    private static final int BATCH = 256;

    final Port port;
    final int pkeyIndex;
    /** The P_Key table entry the queue pair uses (full or limited membership of the partition). */
    final int pkeyValue;
    /** The broadcast group; replaced in place when a re-join gives it a new MLID (after an SM change). */
    volatile McMemberRecord broadcast;
    final int mtu;
    final QKey qkey;
    final Qpn qpn;
    final Gid gid;
    /** The own address: its flags octet carries the RC flag while connected mode runs. */
    volatile LinkAddress address;
    /** Connected mode, while the interface runs it (else null: every frame goes over UD). */
    volatile ConnectedMode connected;
    /** The port's CM agent (null when the provider offers no CM MADs). */
    final CmPortAgent cmAgent;
    final int serviceLevel;
    volatile int ownLid;

    private final LinkEngine engine;
    /** The engine's clock: when sends were posted, for the transmit watchdog. */
    private final Clock clock;
    private final LinkStatistics stats;
    /** Receive completions: drained by the receive thread. */
    private final CompletionQueue cq;
    /**
     * Send completions: never waited on; senders reclaim them when free buffers run low, as
     * Linux's IPoIB polls its send CQ from the transmit path, so no thread wakes per packet.
     */
    private final CompletionQueue sendCq;
    /** The batch senders reclaim into; guarded by {@link #freeSend}. */
    private final WorkCompletions sendBatch = new WorkCompletions(BATCH);
    private final UdQueuePair qp;
    private final MemoryRegion region;
    private final MemorySegment buffers;
    private final int sendCount;
    private final int receiveCount;
    private final int bufferSize;
    private volatile AddressHandle broadcastHandle;
    /** Groups the multicast manager made usable; read per multicast frame without locks. */
    private final Map<Mgid, GroupRoute> groups = new ConcurrentHashMap<>();

    // Free send buffers: a stack of indices guarded by itself (senders pop, the poller pushes).
    private final int[] freeSend;
    /** Senders reclaim send completions when fewer buffers than this are free (a quarter of the pool). */
    private final int reclaimThreshold;
    private int freeTop;
    private final long[] sendPostedAt;

    /** The handle each send buffer is posted with, until its completion is reclaimed. */
    private final SendHandles sendHandles;
    /** Replaced and released handles, destroyed once no posted send uses them. */
    final HandleReaper reaper = new HandleReaper();
    /** The unicast paths of this UP period. */
    final PathCache paths;
    /** The receive buffers and the receive thread. */
    private final ReceiveLoop receiver;
    private volatile boolean running = true;

    /**
     * A group's address handle and, when the queue pair is attached to receive it, the MLID it was
     * attached with (needed to detach, and the MLID may change when the group is created anew).
     */
    private record GroupRoute(AddressHandle handle, McMemberRecord record, boolean attached) {}

    LinkResources(LinkEngine engine, Port port, int pkeyIndex, int pkeyValue, McMemberRecord broadcast,
                  LinkConfig config) {
        this.engine = engine;
        this.clock = engine.control().clock();
        this.stats = engine.stats;
        this.port = port;
        this.pkeyIndex = pkeyIndex;
        this.pkeyValue = pkeyValue;
        this.broadcast = broadcast;
        this.mtu = broadcast.mtu().ipoibMtu();
        this.qkey = broadcast.qkey();
        this.serviceLevel = broadcast.serviceLevel();
        this.gid = port.gid(0);
        this.ownLid = port.attributes().lid().value();
        this.sendCount = config.sendQueueDepth();
        this.receiveCount = config.receiveQueueDepth();
        // Every buffer holds the GRH area, the 4-octet header and a full IB MTU of payload.
        this.bufferSize = (UdQueuePair.GRH_AREA_LENGTH + broadcast.mtu().bytes() + 63) & ~63;
        this.freeSend = new int[sendCount];
        this.reclaimThreshold = Math.max(1, sendCount / 4);
        this.sendPostedAt = new long[sendCount];
        this.sendHandles = new SendHandles(sendCount);
        CompletionQueue createdCq = null;
        CompletionQueue createdSendCq = null;
        UdQueuePair createdQp = null;
        MemoryRegion createdRegion = null;
        AddressHandle createdAh = null;
        try {
            createdCq = port.createCompletionQueue(receiveCount);
            createdSendCq = port.createCompletionQueue(sendCount);
            createdQp = port.createUdQueuePair(new UdQueuePairConfig(createdSendCq, createdCq, sendCount,
                    receiveCount, pkeyIndex, qkey, true));
            this.buffers = Arena.ofAuto().allocate((long) bufferSize * (sendCount + receiveCount), 64);
            createdRegion = port.device().registerMemory(buffers);
            createdQp.attachMulticast(broadcast.mgid().gid(), broadcast.mlid());
            createdAh = port.createAddressHandle(groupVector(broadcast));
        } catch (RuntimeException e) {
            closeQuietly(createdAh, createdQp, createdRegion, createdCq, createdSendCq);
            throw e;
        }
        this.cq = createdCq;
        this.sendCq = createdSendCq;
        this.qp = createdQp;
        this.region = createdRegion;
        this.broadcastHandle = createdAh;
        this.qpn = qp.qpn();
        this.address = LinkAddress.of(qpn, gid);
        this.cmAgent = acquireCmAgent(port);
        PKey partition = config.pkey();
        this.paths = new PathCache(destination -> port.subnetAdministrator().pathRecord(gid, destination, partition),
                (record, sl) -> port.createAddressHandle(PathCache.vector(record, sl)),
                () -> this.broadcast.serviceLevel(), reaper);
        for (int i = 0; i < sendCount; i++) {
            freeSend[i] = i;
        }
        freeTop = sendCount;
        receiver = new ReceiveLoop(engine, stats, cq, qp, region, buffers, (long) sendCount * bufferSize, receiveCount,
                bufferSize, qpn, gid, () -> ownLid);
        receiver.start();
    }

    /** The address vector of a multicast group (RFC 4391 §9.1.2: the group's SL, flow label, hop limit, TClass). */
    static AddressVector groupVector(McMemberRecord group) {
        return new AddressVector(group.mlid(), group.serviceLevel(), group.rate(), true, group.mgid().gid(),
                group.flowLabel(), group.hopLimit(), group.trafficClass(), 0);
    }

    private long sendOffset(int index) {
        return (long) index * bufferSize;
    }

    // ---- transmit ----------------------------------------------------------------------------------

    private static CmPortAgent acquireCmAgent(Port port) {
        try {
            return CmPortAgent.acquire(port);
        } catch (RuntimeException noCm) {
            return null; // connected mode says why when it is asked for
        }
    }

    /**
     * Sends on a unicast path: over the peer's connection when connected mode runs and the peer's
     * address carries the RC flag (Linux's ipoib_cm_enabled), else over UD.
     */
    TransmitResult sendUnicast(PathEntry path, LinkAddress destination, int etherType, MemorySegment payload) {
        ConnectedMode cm = connected;
        if (cm != null && (destination.flags() & ipoib.codec.ipoib.CapabilityFlags.CONNECTED) != 0
                && path.cache == paths) {
            TransmitResult result = cm.send(path, destination, etherType, payload);
            if (result != null) {
                return result;
            }
        }
        return sendUnicast(path, destination.qpn(), etherType, payload);
    }

    /** Sends frames a failed connection held over UD (frames too big for it are dropped as such). */
    TransmitResult sendUnicastOverUd(PathEntry path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        return sendUnicast(path, remoteQpn, etherType, payload);
    }

    /** Sends on a unicast path of this link. */
    TransmitResult sendUnicast(PathEntry path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        if (path.cache != paths) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE); // a path of an earlier UP period
        }
        return send(path, null, remoteQpn, etherType, payload, false);
    }

    /**
     * Copies the frame into a free send buffer and posts it, to the path's current handle when
     * {@code path} is given, else to {@code group}.
     */
    private TransmitResult send(PathEntry path, AddressHandle group, Qpn remoteQpn, int etherType,
                                MemorySegment payload, boolean multicast) {
        long length = payload.byteSize();
        if (length > mtu) {
            return stats.drop(TransmitResult.DROPPED_TOO_BIG);
        }
        int index;
        synchronized (freeSend) {
            if (freeTop < reclaimThreshold) {
                reclaimSends();
            }
            if (freeTop == 0) {
                return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
            }
            index = freeSend[--freeTop];
        }
        AddressHandle destination;
        if (path != null) {
            destination = path.handleFor(sendHandles, index);
            if (destination == null) {
                releaseSend(index);
                return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
            }
        } else {
            destination = group;
            sendHandles.set(index, group);
        }
        long at = sendOffset(index);
        int frameLength = (int) length + EncapsulationHeader.LENGTH;
        EncapsulationHeader.write(buffers, at, etherType);
        MemorySegment.copy(payload, 0, buffers, at + EncapsulationHeader.LENGTH, length);
        sendPostedAt[index] = clock.nanoTime();
        // Captured before posting: the provider may complete the send and the buffer be reused at once.
        LinkCapture capture = engine.capture;
        int slot = capture == null ? -1 : capture.claim();
        if (slot >= 0) {
            Gid to = path != null ? path.destination : group.vector() == null ? null : group.vector().destinationGid();
            capture.fillSent(slot, remoteQpn.value(), to, buffers, at, frameLength);
        }
        boolean posted;
        try {
            posted = qp.postSend(index, region, at, frameLength, destination, remoteQpn, qkey);
        } catch (VerbsException e) {
            // The provider went away under us: the frame is lost.
            releaseSend(index);
            abortCapture(capture, slot);
            return stats.drop(TransmitResult.DROPPED_LINK_DOWN);
        }
        if (!posted) {
            releaseSend(index);
            abortCapture(capture, slot);
            return stats.drop(TransmitResult.DROPPED_NO_BUFFER);
        }
        if (slot >= 0) {
            capture.commit(slot);
        }
        stats.txPackets.increment();
        stats.txBytes.add(length);
        if (multicast) {
            stats.txMulticast.increment();
        }
        return TransmitResult.SENT;
    }

    TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        return send(null, broadcastHandle, Qpn.MULTICAST, etherType, payload, true);
    }

    TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        if (group.equals(broadcast.mgid())) {
            return send(null, broadcastHandle, Qpn.MULTICAST, etherType, payload, true);
        }
        GroupRoute route = groups.get(group);
        if (route == null) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return send(null, route.handle(), Qpn.MULTICAST, etherType, payload, true);
    }

    private static void abortCapture(LinkCapture capture, int slot) {
        if (slot >= 0) {
            capture.abort(slot);
        }
    }

    /** Returns the buffers of completed sends to the free stack; the caller holds {@link #freeSend}. */
    private void reclaimSends() {
        int n;
        do {
            try {
                n = sendCq.poll(sendBatch);
            } catch (VerbsException providerGone) {
                return;
            }
            for (int i = 0; i < n; i++) {
                CompletionStatus status = sendBatch.status(i);
                if (status != CompletionStatus.SUCCESS && status != CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                    stats.txErrors.increment();
                }
                int index = (int) sendBatch.workRequestId(i);
                sendHandles.clear(index);
                freeSend[freeTop++] = index;
            }
        } while (n == sendBatch.capacity());
    }

    /** Reclaims completed sends now (the watchdog, before it looks for stuck buffers). */
    void reclaimCompletedSends() {
        synchronized (freeSend) {
            reclaimSends();
        }
    }

    private void releaseSend(int index) {
        sendHandles.clear(index);
        synchronized (freeSend) {
            freeSend[freeTop++] = index;
        }
    }

    /**
     * Destroys the retired address handles whose sends have completed (run once a second on the
     * control thread); returns how many still wait for their sends.
     */
    int reapHandles() {
        reclaimCompletedSends();
        return reaper.reap(sendHandles::inUse);
    }

    /** Send buffers outstanding longer than the transmit timeout (the design document's tx timeout). */
    int stuckSends(long timeoutNanos) {
        boolean[] free = new boolean[sendCount];
        synchronized (freeSend) {
            reclaimSends();
            for (int i = 0; i < freeTop; i++) {
                free[freeSend[i]] = true;
            }
        }
        long now = clock.nanoTime();
        int stuck = 0;
        for (int i = 0; i < sendCount; i++) {
            if (!free[i] && now - sendPostedAt[i] > timeoutNanos) {
                stuck++;
            }
        }
        return stuck;
    }

    // ---- multicast groups ---------------------------------------------------------------------------

    /**
     * Makes a joined group usable: a new address handle, and the queue pair attached when the
     * join state receives. A group added again (another join state, a new MLID) is re-attached
     * or detached as needed, never attached twice. The old attachment goes first: hardware keys
     * attachments by MGID, so detaching an old MLID after attaching the new one would detach both.
     */
    synchronized void addGroup(McMemberRecord joined, boolean receive) {
        if (!running) {
            throw new IllegalStateException("the link's resources are closed");
        }
        Mgid mgid = joined.mgid();
        if (mgid.equals(broadcast.mgid())) {
            throw new IllegalArgumentException("group " + mgid + " is the link's broadcast group");
        }
        GroupRoute old = groups.get(mgid);
        boolean keepAttachment = old != null && old.attached() && receive && old.record().mlid().equals(joined.mlid());
        if (old != null && old.attached() && !keepAttachment) {
            detachQuietly(mgid, old.record());
        }
        boolean attachedHere = false;
        AddressHandle ah;
        try {
            if (receive && !keepAttachment) {
                qp.attachMulticast(mgid.gid(), joined.mlid());
                attachedHere = true;
            }
            ah = port.createAddressHandle(groupVector(joined));
        } catch (RuntimeException e) {
            // Nothing half-made stays: the group is not usable on this link any more.
            if (attachedHere || keepAttachment) {
                detachQuietly(mgid, joined);
            }
            GroupRoute gone = groups.remove(mgid);
            if (gone != null) {
                reaper.retire(gone.handle());
            }
            throw e;
        }
        groups.put(mgid, new GroupRoute(ah, joined, receive));
        if (old != null) {
            reaper.retire(old.handle());
        }
    }

    /** Forgets a group's address handle and detaches the queue pair when it was attached. */
    synchronized void removeGroup(Mgid mgid) {
        GroupRoute route = groups.remove(mgid);
        if (route != null) {
            reaper.retire(route.handle());
            if (route.attached()) {
                detachQuietly(mgid, route.record());
            }
        }
    }

    private void detachQuietly(Mgid mgid, McMemberRecord record) {
        try {
            qp.detachMulticast(mgid.gid(), record.mlid());
        } catch (VerbsException e) {
            engine.hooks().warn("detach of " + mgid + " (MLID " + record.mlid() + ") failed on " + engine.name(), e);
        }
    }

    boolean hasGroup(Mgid mgid) {
        return mgid.equals(broadcast.mgid()) || groups.containsKey(mgid);
    }

    /**
     * The broadcast group came back with another MLID (an SM change deleted and re-created it) but
     * the same Q_Key and MTU: attach to the new MLID and send through a new handle, keeping the
     * queue pair, its QPN and the buffers.
     */
    synchronized void rebindBroadcast(McMemberRecord record) {
        McMemberRecord old = broadcast;
        AddressHandle oldHandle = broadcastHandle;
        AddressHandle ah = port.createAddressHandle(groupVector(record));
        // Detach before attaching: hardware keys attachments by MGID (see addGroup). A failed
        // attach leaves the link without broadcast reception; the caller restarts it.
        detachQuietly(old.mgid(), old);
        try {
            qp.attachMulticast(record.mgid().gid(), record.mlid());
        } catch (RuntimeException e) {
            ah.close();
            throw e;
        }
        broadcastHandle = ah;
        broadcast = record;
        reaper.retire(oldHandle);
    }

    // ---- shutdown -----------------------------------------------------------------------------------

    /** Stops the receive thread and destroys the resources in dependency order. */
    void close() {
        synchronized (this) {
            running = false; // addGroup refuses from now on: no route is added after the cleanup below
        }
        ConnectedMode cm = connected;
        connected = null;
        if (cm != null) {
            cm.close();
        }
        if (cmAgent != null) {
            cmAgent.release();
        }
        receiver.stop();
        paths.close("link " + engine.name() + " went down");
        synchronized (this) {
            for (GroupRoute route : groups.values()) {
                closeQuietly(route.handle());
            }
            groups.clear();
        }
        // The queue pair goes first: no send can use a handle after it is destroyed.
        closeQuietly(qp);
        reaper.closeAll();
        closeQuietly(broadcastHandle, region, cq, sendCq);
    }

    private static void closeQuietly(AutoCloseable... resources) {
        for (AutoCloseable r : resources) {
            if (r != null) {
                try {
                    r.close();
                } catch (Exception ignored) {
                    // Best effort: the provider may already have released it.
                }
            }
        }
    }
}
