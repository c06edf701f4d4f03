package ipoib.link.internal;

import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.VerbsException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The multicast groups one UP period sends to and receives from: the broadcast group, and the
 * groups the multicast manager joined, each with its address handle and, when the queue pair is
 * attached to receive it, the MLID it was attached with. Senders look a group's handle up without
 * locks; changes are serialised on this object. Replaced handles go to the {@link HandleReaper}.
 */
final class GroupRoutes {
    private final LinkEngine engine;
    private final Port port;
    private final UdQueuePair qp;
    private final HandleReaper reaper;
    /** The broadcast group; replaced in place when a re-join gives it a new MLID (after an SM change). */
    private volatile McMemberRecord broadcast;
    private volatile AddressHandle broadcastHandle;
    /** Groups the multicast manager made usable; read per multicast frame without locks. */
    private final Map<Mgid, GroupRoute> groups = new ConcurrentHashMap<>();
    private boolean closed;

    /**
     * A group's address handle and, when the queue pair is attached to receive it, the MLID it was
     * attached with (needed to detach, and the MLID may change when the group is created anew).
     */
    private record GroupRoute(AddressHandle handle, McMemberRecord record, boolean attached) {}

    /** @param broadcastHandle the handle of {@code broadcast}, to whose MLID the queue pair is attached */
    GroupRoutes(LinkEngine engine, Port port, UdQueuePair qp, HandleReaper reaper, McMemberRecord broadcast,
                AddressHandle broadcastHandle) {
        this.engine = engine;
        this.port = port;
        this.qp = qp;
        this.reaper = reaper;
        this.broadcast = broadcast;
        this.broadcastHandle = broadcastHandle;
    }

    /** The address vector of a multicast group (RFC 4391 §9.1.2: the group's SL, flow label, hop limit, TClass). */
    static AddressVector groupVector(McMemberRecord group) {
        return new AddressVector(group.mlid(), group.serviceLevel(), group.rate(), true, group.mgid().gid(),
                group.flowLabel(), group.hopLimit(), group.trafficClass(), 0);
    }

    McMemberRecord broadcast() {
        return broadcast;
    }

    AddressHandle broadcastHandle() {
        return broadcastHandle;
    }

    /** The handle to send to a group with, or null when the group is not usable on this link. */
    AddressHandle handle(Mgid group) {
        if (group.equals(broadcast.mgid())) {
            return broadcastHandle;
        }
        GroupRoute route = groups.get(group);
        return route == null ? null : route.handle();
    }

    boolean has(Mgid mgid) {
        return mgid.equals(broadcast.mgid()) || groups.containsKey(mgid);
    }

    /**
     * Makes a joined group usable: a new address handle, and the queue pair attached when the
     * join state receives. A group added again (another join state, a new MLID) is re-attached
     * or detached as needed, never attached twice. The old attachment goes first: hardware keys
     * attachments by MGID, so detaching an old MLID after attaching the new one would detach both.
     */
    synchronized void add(McMemberRecord joined, boolean receive) {
        if (closed) {
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
    synchronized void remove(Mgid mgid) {
        GroupRoute route = groups.remove(mgid);
        if (route != null) {
            reaper.retire(route.handle());
            if (route.attached()) {
                detachQuietly(mgid, route.record());
            }
        }
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
        // Detach before attaching: hardware keys attachments by MGID (see add). A failed
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

    private void detachQuietly(Mgid mgid, McMemberRecord record) {
        try {
            qp.detachMulticast(mgid.gid(), record.mlid());
        } catch (VerbsException e) {
            engine.hooks().warn("detach of " + mgid + " (MLID " + record.mlid() + ") failed on " + engine.name(), e);
        }
    }

    /** Refuses further groups from now on: no route is added after the resources' cleanup. */
    synchronized void refuseMore() {
        closed = true;
    }

    /** Destroys the joined groups' handles (the queue pair goes with its attachments). */
    synchronized void closeGroupHandles() {
        for (GroupRoute route : groups.values()) {
            LinkResources.closeQuietly(route.handle());
        }
        groups.clear();
    }
}
