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
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.link.internal.cm.CmPortAgent;
import ipoib.link.internal.cm.ConnectedMode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The verbs resources of one UP period of a link: the completion queues, the UD queue pair and
 * one registered block of send and receive buffers, and what works on them: the send side
 * ({@link UdSender}), the receive side ({@link ReceiveLoop}), the multicast groups
 * ({@link GroupRoutes}), the path cache and the handle reaper. Created when the broadcast join
 * succeeded, closed when the link goes down; nothing here is reused across periods, so a stale
 * sender can only fail, never corrupt.
 */
public final class LinkResources {
    final Port port;
    final int pkeyIndex;
    /** The P_Key table entry the queue pair uses (full or limited membership of the partition). */
    final int pkeyValue;
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
    /** Receive completions: drained by the receive thread. */
    private final CompletionQueue cq;
    /** Send completions: reclaimed by the senders (see {@link UdSender}). */
    private final CompletionQueue sendCq;
    private final UdQueuePair qp;
    private final MemoryRegion region;
    private final UdSender udSender;
    private final GroupRoutes groups;
    /** Replaced and released handles, destroyed once no posted send uses them. */
    final HandleReaper reaper = new HandleReaper();
    /** The unicast paths of this UP period. */
    final PathCache paths;
    /** The receive buffers and the receive thread. */
    private final ReceiveLoop receiver;

    LinkResources(LinkEngine engine, Port port, int pkeyIndex, int pkeyValue, McMemberRecord broadcast,
                  LinkConfig config) {
        this.engine = engine;
        this.port = port;
        this.pkeyIndex = pkeyIndex;
        this.pkeyValue = pkeyValue;
        this.mtu = broadcast.mtu().ipoibMtu();
        this.qkey = broadcast.qkey();
        this.serviceLevel = broadcast.serviceLevel();
        this.gid = port.gid(0);
        this.ownLid = port.attributes().lid().value();
        int sendCount = config.sendQueueDepth();
        int receiveCount = config.receiveQueueDepth();
        // Every buffer holds the GRH area, the 4-octet header and a full IB MTU of payload.
        int bufferSize = (UdQueuePair.GRH_AREA_LENGTH + broadcast.mtu().bytes() + 63) & ~63;
        CompletionQueue createdCq = null;
        CompletionQueue createdSendCq = null;
        UdQueuePair createdQp = null;
        MemoryRegion createdRegion = null;
        AddressHandle createdAh = null;
        MemorySegment buffers;
        try {
            // Single-threaded: the receive loop alone polls the receive queue, senders reclaim
            // send completions under the UD sender's lock.
            createdCq = port.createCompletionQueue(receiveCount, true);
            createdSendCq = port.createCompletionQueue(sendCount, true);
            createdQp = port.createUdQueuePair(new UdQueuePairConfig(createdSendCq, createdCq, sendCount,
                    receiveCount, pkeyIndex, qkey, true));
            buffers = Arena.ofAuto().allocate((long) bufferSize * (sendCount + receiveCount), 64);
            createdRegion = port.device().registerMemory(buffers);
            createdQp.attachMulticast(broadcast.mgid().gid(), broadcast.mlid());
            createdAh = port.createAddressHandle(GroupRoutes.groupVector(broadcast));
        } catch (RuntimeException e) {
            closeQuietly(createdAh, createdQp, createdRegion, createdCq, createdSendCq);
            throw e;
        }
        this.cq = createdCq;
        this.sendCq = createdSendCq;
        this.qp = createdQp;
        this.region = createdRegion;
        this.qpn = qp.qpn();
        this.address = LinkAddress.of(qpn, gid);
        this.cmAgent = acquireCmAgent(port);
        this.groups = new GroupRoutes(engine, port, qp, reaper, broadcast, createdAh);
        this.udSender = new UdSender(engine, sendCq, qp, region, buffers, sendCount, bufferSize, mtu, qkey);
        PKey partition = config.pkey();
        this.paths = new PathCache(destination -> port.subnetAdministrator().pathRecord(gid, destination, partition),
                (record, sl) -> port.createAddressHandle(PathCache.vector(record, sl)),
                () -> groups.broadcast().serviceLevel(), reaper, engine.history.pathResolutions);
        receiver = new ReceiveLoop(engine, engine.stats, cq, qp, region, buffers, (long) sendCount * bufferSize,
                receiveCount, bufferSize, qpn, gid, () -> ownLid);
        receiver.start();
    }

    /** The broadcast group; replaced in place when a re-join gives it a new MLID (after an SM change). */
    McMemberRecord broadcast() {
        return groups.broadcast();
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
        // ARP stays on UD (seed 001 §3.3: "All ARP packets MUST only be exchanged over IPoIB-UD";
        // Linux: unicast_arp_send in ipoib_main.c sends over the path's UD address handle).
        if (cm != null && (destination.flags() & ipoib.codec.ipoib.CapabilityFlags.CONNECTED) != 0
                && etherType != ipoib.api.link.EtherType.ARP && path.cache == paths) {
            TransmitResult result = cm.send(path, destination, etherType, payload);
            if (result != null) {
                return result;
            }
        }
        return sendUnicast(path, destination.qpn(), etherType, payload);
    }

    /** Sends frames a failed connection held over UD (frames too big for it are dropped as such). */
    public TransmitResult sendUnicastOverUd(PathEntry path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        return sendUnicast(path, remoteQpn, etherType, payload);
    }

    /** Sends on a unicast path of this link. */
    TransmitResult sendUnicast(PathEntry path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        if (path.cache != paths) {
            return engine.stats.drop(TransmitResult.DROPPED_NO_ROUTE); // a path of an earlier UP period
        }
        return tooBig(udSender.send(path, null, remoteQpn, etherType, payload, false), etherType, payload, false);
    }

    boolean beginBurst() {
        return udSender.beginBurst();
    }

    void endBurst() {
        udSender.endBurst();
    }

    TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        return tooBig(udSender.send(null, groups.broadcastHandle(), Qpn.MULTICAST, etherType, payload, true),
                etherType, payload, true);
    }

    /**
     * A frame UD refused as too big while connected mode's MTU is in force: Linux's ICMP emulation
     * (TooBigNotice); {@code toGroup} when it went to the broadcast or a multicast group.
     */
    private TransmitResult tooBig(TransmitResult result, int etherType, MemorySegment payload, boolean toGroup) {
        ConnectedMode cm = connected;
        if (result == TransmitResult.DROPPED_TOO_BIG && cm != null) {
            cm.tooBig(etherType, payload, mtu, toGroup);
        }
        return result;
    }

    TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        AddressHandle handle = groups.handle(group);
        if (handle == null) {
            return engine.stats.drop(TransmitResult.DROPPED_NO_ROUTE);
        }
        return tooBig(udSender.send(null, handle, Qpn.MULTICAST, etherType, payload, true), etherType, payload, true);
    }

    /**
     * Destroys the retired address handles whose sends have completed (run once a second on the
     * control thread); returns how many still wait for their sends.
     */
    int reapHandles() {
        udSender.reclaimCompletedSends();
        return reaper.reap(udSender::inUse);
    }

    /** Send buffers outstanding longer than the transmit timeout. */
    int stuckSends(long timeoutNanos) {
        return udSender.stuckSends(timeoutNanos);
    }

    // ---- multicast groups (see GroupRoutes) ---------------------------------------------------------

    void addGroup(McMemberRecord joined, boolean receive) {
        groups.add(joined, receive);
    }

    void removeGroup(Mgid mgid) {
        groups.remove(mgid);
    }

    boolean hasGroup(Mgid mgid) {
        return groups.has(mgid);
    }

    void rebindBroadcast(McMemberRecord record) {
        groups.rebindBroadcast(record);
    }

    // ---- shutdown -----------------------------------------------------------------------------------

    /** Stops the receive thread and destroys the resources in dependency order. */
    void close() {
        groups.refuseMore(); // no route is added after the cleanup below
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
        groups.closeGroupHandles();
        // The queue pair goes first: no send can use a handle after it is destroyed.
        closeQuietly(qp);
        udSender.closeCounts();
        reaper.closeAll();
        closeQuietly(groups.broadcastHandle(), region, cq, sendCq);
    }

    public static void closeQuietly(AutoCloseable... resources) {
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
