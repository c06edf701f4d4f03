package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.ReceivedFrame;
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
import ipoib.codec.DecodeException;
import ipoib.codec.iba.Grh;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.codec.ipoib.UdReceiveBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The verbs resources of one UP period of a link and its data path: a completion queue, the UD
 * queue pair, one registered block of send and receive buffers, the broadcast address handle
 * and the receive thread. Created when the broadcast join succeeded, closed when the link goes
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
    final LinkAddress address;
    final int serviceLevel;
    volatile int ownLid;

    private final LinkEngine engine;
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

    private final Thread poller;
    private volatile boolean running = true;
    private final Frame frame = new Frame();

    /**
     * A group's address handle and, when the queue pair is attached to receive it, the MLID it was
     * attached with (needed to detach, and the MLID may change when the group is created anew).
     */
    private record GroupRoute(AddressHandle handle, McMemberRecord record, boolean attached) {}

    LinkResources(LinkEngine engine, Port port, int pkeyIndex, int pkeyValue, McMemberRecord broadcast,
                  LinkConfig config) {
        this.engine = engine;
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
        for (int i = 0; i < sendCount; i++) {
            freeSend[i] = i;
        }
        freeTop = sendCount;
        for (int i = 0; i < receiveCount; i++) {
            postReceive(i);
        }
        poller = new Thread(this::pollLoop, "ipoib-rx-" + engine.name());
        poller.setDaemon(true);
        poller.start();
    }

    /** The address vector of a multicast group (RFC 4391 §9.1.2: the group's SL, flow label, hop limit, TClass). */
    static AddressVector groupVector(McMemberRecord group) {
        return new AddressVector(group.mlid(), group.serviceLevel(), group.rate(), true, group.mgid().gid(),
                group.flowLabel(), group.hopLimit(), group.trafficClass(), 0);
    }

    private long receiveOffset(int index) {
        return (long) (sendCount + index) * bufferSize;
    }

    private long sendOffset(int index) {
        return (long) index * bufferSize;
    }

    private void postReceive(int index) {
        if (!qp.postReceive(index, region, receiveOffset(index), bufferSize)) {
            stats.rxErrors.increment();
        }
    }

    // ---- transmit ----------------------------------------------------------------------------------

    TransmitResult send(AddressHandle destination, Qpn remoteQpn, int etherType, MemorySegment payload,
                        boolean multicast) {
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
        long at = sendOffset(index);
        int frameLength = (int) length + EncapsulationHeader.LENGTH;
        EncapsulationHeader.write(buffers, at, etherType);
        MemorySegment.copy(payload, 0, buffers, at + EncapsulationHeader.LENGTH, length);
        sendPostedAt[index] = System.nanoTime();
        // Captured before posting: the provider may complete the send and the buffer be reused at once.
        LinkCapture capture = engine.capture;
        int slot = capture == null ? -1 : capture.claim();
        if (slot >= 0) {
            capture.fillSent(slot, remoteQpn.value(), PathAddressHandle.destinationGid(destination), buffers, at,
                    frameLength);
        }
        boolean posted;
        try {
            posted = qp.postSend(index, region, at, frameLength, PathAddressHandle.unwrap(destination),
                    remoteQpn, qkey);
        } catch (VerbsException e) {
            // The provider went away under us (or a group handle was replaced): the frame is lost.
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
        return send(broadcastHandle, Qpn.MULTICAST, etherType, payload, true);
    }

    TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        if (group.equals(broadcast.mgid())) {
            return send(broadcastHandle, Qpn.MULTICAST, etherType, payload, true);
        }
        GroupRoute route = groups.get(group);
        if (route == null) {
            return stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return send(route.handle(), Qpn.MULTICAST, etherType, payload, true);
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
                freeSend[freeTop++] = (int) sendBatch.workRequestId(i);
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
        synchronized (freeSend) {
            freeSend[freeTop++] = index;
        }
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
        long now = System.nanoTime();
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
                gone.handle().close();
            }
            throw e;
        }
        groups.put(mgid, new GroupRoute(ah, joined, receive));
        if (old != null) {
            old.handle().close();
        }
    }

    /** Forgets a group's address handle and detaches the queue pair when it was attached. */
    synchronized void removeGroup(Mgid mgid) {
        GroupRoute route = groups.remove(mgid);
        if (route != null) {
            route.handle().close();
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
        oldHandle.close();
    }

    AddressHandle createUnicastHandle(AddressVector vector, ipoib.api.Gid destination) {
        return new PathAddressHandle(port.createAddressHandle(vector), destination);
    }

    // ---- receive ------------------------------------------------------------------------------------

    private void pollLoop() {
        WorkCompletions batch = new WorkCompletions(BATCH);
        while (running) {
            int n;
            try {
                n = cq.poll(batch);
                if (n == 0) {
                    cq.await(100, TimeUnit.MILLISECONDS);
                    continue;
                }
            } catch (InterruptedException e) {
                break;
            } catch (VerbsException e) {
                if (running) {
                    engine.hooks().warn("completion queue of " + engine.name() + " failed", e);
                }
                break;
            }
            for (int i = 0; i < n; i++) {
                CompletionStatus status = batch.status(i);
                int index = (int) batch.workRequestId(i);
                if (status == CompletionStatus.WORK_REQUEST_FLUSH_ERROR) {
                    continue;
                }
                if (status == CompletionStatus.SUCCESS) {
                    receive(index, batch.byteLength(i), batch.sourceQpn(i), batch.sourceLid(i), batch.grhPresent(i));
                } else {
                    stats.rxErrors.increment();
                }
                if (running) {
                    postReceive(index);
                }
            }
        }
    }

    private void receive(int index, int byteLength, int sourceQpn, int sourceLid, boolean grh) {
        long at = receiveOffset(index);
        int frameLength = byteLength - UdQueuePair.GRH_AREA_LENGTH;
        if (frameLength < EncapsulationHeader.LENGTH) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        boolean multicast = grh && (buffers.get(ValueLayout.JAVA_BYTE, at + 24) & 0xFF) == 0xFF;
        if (multicast && sourceQpn == qpn.value() && sourceLid == ownLid) {
            // Our own multicast, replicated back to us by the fabric.
            stats.rxDroppedOwn.increment();
            return;
        }
        int etherType;
        try {
            etherType = EncapsulationHeader.etherType(buffers, at + UdQueuePair.GRH_AREA_LENGTH);
        } catch (DecodeException e) {
            stats.rxDroppedMalformed.increment();
            return;
        }
        LinkCapture capture = engine.capture;
        if (capture != null) {
            int slot = capture.claim();
            if (slot >= 0) {
                capture.fillReceived(slot, buffers, at, grh, sourceQpn, qpn.value(), gid, at + UdQueuePair.GRH_AREA_LENGTH,
                        frameLength);
                capture.commit(slot);
            }
        }
        FrameHandler[] handlers = engine.hooks().handlers(etherType);
        if (handlers.length == 0) {
            stats.rxDroppedNoHandler.increment();
            return;
        }
        stats.rxPackets.increment();
        stats.rxBytes.add(frameLength - EncapsulationHeader.LENGTH);
        if (multicast) {
            stats.rxMulticast.increment();
        }
        frame.set(etherType, at, frameLength - EncapsulationHeader.LENGTH, sourceQpn, sourceLid, grh, multicast);
        for (FrameHandler handler : handlers) {
            try {
                handler.onFrame(engine, frame);
            } catch (Throwable t) {
                stats.handlerErrors.increment();
                engine.logHandlerError(handler, t);
            }
        }
    }

    /** The receive thread's reusable view of the frame being dispatched. */
    private final class Frame implements ReceivedFrame {
        private int etherType;
        private long bufferOffset;
        private int payloadLength;
        private int sourceQpn;
        private int sourceLid;
        private boolean grh;
        private boolean multicast;
        private final Grh grhView = new Grh();

        void set(int etherType, long bufferOffset, int payloadLength, int sourceQpn, int sourceLid, boolean grh,
                 boolean multicast) {
            this.etherType = etherType;
            this.bufferOffset = bufferOffset;
            this.payloadLength = payloadLength;
            this.sourceQpn = sourceQpn;
            this.sourceLid = sourceLid;
            this.grh = grh;
            this.multicast = multicast;
        }

        @Override
        public int etherType() {
            return etherType;
        }

        @Override
        public MemorySegment buffer() {
            return buffers;
        }

        @Override
        public long payloadOffset() {
            return bufferOffset + UdQueuePair.GRH_AREA_LENGTH + EncapsulationHeader.LENGTH;
        }

        @Override
        public int payloadLength() {
            return payloadLength;
        }

        @Override
        public int sourceQpn() {
            return sourceQpn;
        }

        @Override
        public int sourceLid() {
            return sourceLid;
        }

        @Override
        public boolean grhPresent() {
            return grh;
        }

        private Grh grhView() {
            try {
                return UdReceiveBuffer.grh(buffers, bufferOffset, true, grhView);
            } catch (DecodeException e) {
                return null;
            }
        }

        @Override
        public Gid sourceGid() {
            Grh v = grh ? grhView() : null;
            return v == null ? null : v.sourceGid();
        }

        @Override
        public Gid destinationGid() {
            Grh v = grh ? grhView() : null;
            return v == null ? null : v.destinationGid();
        }

        @Override
        public boolean multicast() {
            return multicast;
        }
    }

    // ---- shutdown -----------------------------------------------------------------------------------

    /** Stops the receive thread and destroys the resources in dependency order. */
    void close() {
        synchronized (this) {
            running = false; // addGroup refuses from now on: no route is added after the cleanup below
        }
        try {
            cq.wakeup();
        } catch (RuntimeException ignored) {
            // The provider is gone; the thread stops on its own at the next timeout.
        }
        if (Thread.currentThread() != poller) {
            try {
                poller.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            for (GroupRoute route : groups.values()) {
                closeQuietly(route.handle());
            }
            groups.clear();
        }
        closeQuietly(broadcastHandle, qp, region, cq, sendCq);
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
