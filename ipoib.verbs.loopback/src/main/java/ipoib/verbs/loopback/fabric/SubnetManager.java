package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.sa.SaStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The emulated subnet manager and the semantics of its subnet administrator, following OpenSM:
 * LIDs, the partition rules for path records, multicast groups (create, join, leave, delete
 * when the last FullMember leaves, persistent groups from the partition configuration), and
 * InformInfo subscriptions to traps 66 and 67. The MAD encoding is the caller's.
 */
public final class SubnetManager {

    /** The SM's own LID: the first switch's port 0 holds it (the emulated SM runs there). */
    public static final int SM_LID = 1;
    /** First LID given to an HCA port. */
    static final int FIRST_PORT_LID = 2;
    /** OpenSM's default packet lifetime for path records. */
    static final int PACKET_LIFETIME = 0x12;

    private final Fabric fabric;
    /**
     * MLIDs handed out: as many as a switch's multicast forwarding table holds (ibsim/sim.h
     * MAXMCASTCAP), since every group's tree is programmed there.
     */
    static final int MLIDS = ipoib.verbs.loopback.subnet.SwitchTables.MULTICAST_CAP;
    private final AtomicReferenceArray<MulticastGroup> groupsByMlid = new AtomicReferenceArray<>(MLIDS);
    private final Map<Mgid, MulticastGroup> groupsByMgid = new ConcurrentHashMap<>();
    private final AtomicInteger nextMlid = new AtomicInteger(Lid.MULTICAST_BASE);
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final Map<String, LongAdder> requestCounters = new ConcurrentHashMap<>();
    private volatile GroupTrapSink trapSink = GroupTrapSink.NONE;
    /** sm=external: the groups the HCAs' queue pairs attached to, by MLID; the emulated SM keeps none. */
    private final AtomicReferenceArray<MulticastGroup> attachedByMlid = new AtomicReferenceArray<>(MLIDS);
    private volatile boolean standsDown;
    private volatile int generation;

    /** An InformInfo subscription: a port, a trap number, and an MGID or null for every group. */
    public record Subscription(LoopPort subscriber, int trapNumber, Mgid mgid, int qpn) {}

    private final MulticastTrees trees;

    SubnetManager(Fabric fabric) {
        this.fabric = fabric;
        this.trees = new MulticastTrees(fabric.topology(), this);
    }

    /** The multicast forwarding trees this SM programs. */
    MulticastTrees trees() {
        return trees;
    }

    public void setTrapSink(GroupTrapSink sink) {
        this.trapSink = sink == null ? GroupTrapSink.NONE : sink;
    }

    // ---- LIDs -------------------------------------------------------------------------------

    /** The HCA port that answers a unicast LID (the subnet model holds the LIDs), or null. */
    LoopPort portByLid(int lid) {
        ipoib.verbs.loopback.subnet.Port port = fabric.topology().portByLid(lid);
        return port == null ? null : fabric.hcaPort(port);
    }

    /**
     * Gives a port its base LID; with LMC > 0 the port answers to the 2^LMC LIDs from it, and
     * the base must be a multiple of 2^LMC (IBA 7.11.1).
     */
    void assignLid(LoopPort port, int lid) {
        int lids = 1 << fabric.config().lmc();
        if (lid < 1 || lid + lids - 1 > Lid.MAX_UNICAST) {
            throw new IllegalArgumentException("invalid LID " + lid + ": allowed 1..0xBFFF (unicast)"
                    + (lids > 1 ? ", with room for the " + lids + " LIDs of LMC " + fabric.config().lmc() : ""));
        }
        if (lid % lids != 0) {
            throw new IllegalArgumentException("invalid LID " + lid + ": with LMC " + fabric.config().lmc()
                    + " a base LID is a multiple of " + lids);
        }
        ipoib.verbs.loopback.subnet.Topology topology = fabric.topology();
        topology.lock().lock();
        try {
            for (int l = lid; l < lid + lids; l++) {
                if (l == SM_LID) {
                    throw new IllegalArgumentException("invalid LID " + lid + ": LID " + SM_LID
                            + " belongs to the subnet manager");
                }
                ipoib.verbs.loopback.subnet.Port holder = topology.portByLid(l);
                if (holder != null && holder != port.model) {
                    LoopPort loopHolder = fabric.hcaPort(holder);
                    throw new IllegalArgumentException("invalid LID " + lid + ": LID " + l + " is already assigned to "
                            + (loopHolder != null ? loopHolder : holder.node().name() + " port 0"));
                }
            }
            topology.assignLid(port.model, lid, fabric.config().lmc());
        } finally {
            topology.lock().unlock();
        }
    }

    /** How many LIDs every port has (2^LMC). */
    int lidsPerPort() {
        return 1 << fabric.config().lmc();
    }

    /** Which port has this GID (index 0), or null. */
    LoopPort portByGid(Gid gid) {
        for (LoopDevice d : fabric.devices()) {
            for (LoopPort p : d.loopPorts()) {
                if (p.gid(0).equals(gid)) {
                    return p;
                }
            }
        }
        return null;
    }

    // ---- path records -------------------------------------------------------------------------

    /**
     * A path record as OpenSM computes it for a local subnet: DLID of the destination, the
     * partition's SL, the smaller of the two ports' MTUs, the fabric rate, hop limit 0.
     *
     * @throws SaStatusException NO_RECORDS for an unknown or inactive destination, or when the
     *                           two ports do not share the partition (one full member at least)
     */
    public PathRecord pathRecord(Gid source, Gid destination, PKey pkey) throws SaStatusException {
        LoopPort src = portByGid(source);
        LoopPort dst = portByGid(destination);
        if (src == null || dst == null) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "no port with GID " + (src == null ? source : destination));
        }
        if (!src.isActive() || !dst.isActive()) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "port not active");
        }
        PKey srcKey = src.partitionKey(pkey);
        PKey dstKey = dst.partitionKey(pkey);
        if (srcKey == null || dstKey == null || !srcKey.canCommunicateWith(dstKey)) {
            throw new SaStatusException(SaStatus.NO_RECORDS, "no path in partition " + pkey + " between "
                    + source + " and " + destination);
        }
        PartitionConfig partition = fabric.partition(pkey.base());
        IbMtu mtu = src.activeMtu().bytes() < dst.activeMtu().bytes() ? src.activeMtu() : dst.activeMtu();
        return new PathRecord(destination, source, Lid.of(dst.lidValue()), Lid.of(src.lidValue()), 0,
                PKey.of(pkey.base() | PKey.FULL_MEMBER_BIT), partition == null ? 0 : partition.serviceLevel(), mtu,
                fabric.config().rate(), PACKET_LIFETIME, 0, 0);
    }

    // ---- multicast groups ----------------------------------------------------------------------

    MulticastGroup groupByMlid(int mlid) {
        int i = mlid - Lid.MULTICAST_BASE;
        AtomicReferenceArray<MulticastGroup> groups = standsDown ? attachedByMlid : groupsByMlid;
        return i >= 0 && i < groups.length() ? groups.get(i) : null;
    }

    /** sm=external: this SM assigns nothing, keeps no groups and answers no SA queries; the external SM does. */
    void standDown() {
        standsDown = true;
    }

    /** Whether an external SM manages the subnet (sm=external). */
    public boolean standsDown() {
        return standsDown;
    }

    /**
     * sm=external: the group a queue pair attaches to, known by the MGID and MLID its port's join
     * got from the external SA; null when the MLID is outside the multicast range or another MGID
     * holds it.
     */
    MulticastGroup attachedGroup(Mgid mgid, int mlid) {
        int i = mlid - Lid.MULTICAST_BASE;
        if (i < 0 || i >= attachedByMlid.length()) {
            return null;
        }
        MulticastGroup g = attachedByMlid.updateAndGet(i, old -> old != null ? old : MulticastGroup.attachedOnly(mgid, mlid));
        return g.mgid.equals(mgid) ? g : null;
    }

    public MulticastGroup group(Mgid mgid) {
        return groupsByMgid.get(mgid);
    }

    public Collection<MulticastGroup> groups() {
        return List.copyOf(groupsByMgid.values());
    }

    /** Creates a group at start-up from the partition configuration (no trap, never deleted). */
    synchronized MulticastGroup createPersistent(McMemberRecord parameters) {
        return groupsByMgid.computeIfAbsent(parameters.mgid(), m -> newGroup(parameters, true));
    }

    private MulticastGroup newGroup(McMemberRecord parameters, boolean persistent) {
        for (int attempt = 0; attempt < groupsByMlid.length(); attempt++) {
            int mlid = nextMlid.getAndUpdate(v -> v + 1 >= Lid.MULTICAST_BASE + MLIDS ? Lid.MULTICAST_BASE : v + 1);
            if (groupsByMlid.get(mlid - Lid.MULTICAST_BASE) == null) {
                MulticastGroup group = new MulticastGroup(parameters, mlid, persistent);
                groupsByMlid.set(mlid - Lid.MULTICAST_BASE, group);
                return group;
            }
        }
        return null;
    }

    /**
     * MCMemberRecord Set: joins {@code port} to the group {@code mgid}, creating it from
     * {@code createTemplate} when it does not exist (OpenSM's rules).
     *
     * @param createTemplate the requested group parameters when the request carried every
     *                       component OpenSM needs to create a group, else null
     * @throws SaStatusException INSUFFICIENT_COMPONENTS to join a missing group without create
     *                           components, REQUEST_INVALID for a non-full create or a port
     *                           outside the group's partition, NO_RESOURCES without MLIDs
     */
    public McMemberRecord join(Mgid mgid, Gid port, int joinStateBits, McMemberRecord createTemplate)
            throws SaStatusException {
        if (joinStateBits == 0 || (joinStateBits & ~0xF) != 0) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "join state " + joinStateBits
                    + " is not made of the bits 0x1, 0x2, 0x4, 0x8");
        }
        LoopPort member = portByGid(port);
        if (member == null) {
            throw new SaStatusException(SaStatus.INVALID_GID, "no port with GID " + port);
        }
        boolean created = false;
        MulticastGroup group;
        synchronized (this) {
            group = groupsByMgid.get(mgid);
            // OpenSM reports a configured group as created when its first member joins.
            created = group != null && group.persistent && group.members().isEmpty();
            if (group == null) {
                // OpenSM checks the join state (ERR 1B10) before the components (ERR 1B11).
                if ((joinStateBits & MulticastGroup.FULL_BITS) == 0) {
                    throw new SaStatusException(SaStatus.REQUEST_INVALID,
                            "ERR 1B10: only a FullMember or SendOnlyFullMember join can create group " + mgid);
                }
                if (createTemplate == null) {
                    throw new SaStatusException(SaStatus.INSUFFICIENT_COMPONENTS,
                            "ERR 1B11: group " + mgid + " does not exist and the request lacks the create components");
                }
                checkPartition(member, createTemplate.pkey(), mgid);
                checkMtu(member, createTemplate.mtu(), mgid);
                group = newGroup(createTemplate, false);
                if (group == null) {
                    throw new SaStatusException(SaStatus.NO_RESOURCES, "no free MLID");
                }
                groupsByMgid.put(mgid, group);
                created = true;
            } else {
                checkPartition(member, group.pkey, mgid);
                checkMtu(member, group.mtu, mgid);
                if (createTemplate != null && !createTemplate.qkey().equals(group.qkey)) {
                    throw new SaStatusException(SaStatus.REQUEST_INVALID, "Q_Key " + createTemplate.qkey()
                            + " differs from the group's " + group.qkey);
                }
            }
            group.addMember(port, joinStateBits);
            trees.program(group);
        }
        if (created) {
            raise(66, mgid);
        }
        return group.record(port, group.joinState(port));
    }

    /** RFC 4391 §5: the SM admits a port only if it supports the group's MTU. */
    private static void checkMtu(LoopPort member, IbMtu mtu, Mgid mgid) throws SaStatusException {
        if (member.activeMtu().bytes() < mtu.bytes()) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "port " + member + " MTU " + member.activeMtu()
                    + " is smaller than the MTU " + mtu + " of group " + mgid);
        }
    }

    private static void checkPartition(LoopPort member, PKey pkey, Mgid mgid) throws SaStatusException {
        if (member.partitionKey(pkey) == null) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID,
                    "port " + member + " is not in partition " + pkey + " of group " + mgid);
        }
    }

    /**
     * MCMemberRecord Delete: removes join-state bits of a member; deletes a non-persistent group
     * when no FullMember is left (trap 67).
     *
     * @throws SaStatusException REQUEST_INVALID when the group or the membership does not exist
     *                           (OpenSM's answer to both)
     */
    public McMemberRecord leave(Mgid mgid, Gid port, int joinStateBits) throws SaStatusException {
        boolean deleted = false;
        MulticastGroup group;
        int before;
        synchronized (this) {
            group = groupsByMgid.get(mgid);
            // OpenSM answers "request invalid" both for a missing group and for a non-member.
            if (group == null) {
                throw new SaStatusException(SaStatus.REQUEST_INVALID, "group " + mgid + " does not exist");
            }
            before = group.joinState(port);
            if (before == 0) {
                throw new SaStatusException(SaStatus.REQUEST_INVALID, "port " + port + " is not a member of " + mgid);
            }
            if ((before & joinStateBits) == 0) {
                throw new SaStatusException(SaStatus.REQUEST_INVALID, "port " + port + " holds join state "
                        + before + " in " + mgid + ", not " + joinStateBits);
            }
            group.removeMember(port, joinStateBits);
            trees.program(group);
            if (!group.persistent && !group.hasFullMember()) {
                groupsByMgid.remove(mgid);
                groupsByMlid.compareAndSet(group.mlid - Lid.MULTICAST_BASE, group, null);
                trees.remove(group.mlid);
                deleted = true;
            } else if (group.persistent && group.members().isEmpty()) {
                // A configured group stays (with its MLID) but is reported deleted, as OpenSM does.
                deleted = true;
            }
        }
        if (deleted) {
            raise(67, mgid);
        }
        return group.record(port, before & joinStateBits);
    }

    /** Removes a port from every group (port down or reset), deleting groups as leave does. */
    void removePortEverywhere(Gid port) {
        for (MulticastGroup group : groups()) {
            int bits = group.joinState(port);
            if (bits != 0) {
                try {
                    leave(group.mgid, port, bits);
                } catch (SaStatusException raced) {
                    // Left concurrently: nothing to remove.
                }
            }
        }
        subscriptions.removeIf(s -> s.subscriber().gid(0).equals(port));
    }

    // ---- traps ---------------------------------------------------------------------------------

    /**
     * InformInfo Set (subscribe). Like OpenSM, only GID zero (every group) is accepted: OpenSM
     * reads the GID as a port GID and refuses an MGID, so subscribers filter by group themselves.
     */
    public Subscription subscribe(LoopPort subscriber, int trapNumber, Mgid mgid, int qpn) throws SaStatusException {
        if (trapNumber != 66 && trapNumber != 67) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "trap " + trapNumber + ": the emulated SA reports 66 and 67");
        }
        if (mgid != null) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "InformInfo GID " + mgid
                    + " is not a port GID; subscribe with GID zero and filter by group");
        }
        Subscription s = new Subscription(subscriber, trapNumber, mgid, qpn);
        // The same InformInfo from the same port replaces the earlier one (no duplicate reports).
        subscriptions.remove(s);
        subscriptions.add(s);
        return s;
    }

    public boolean unsubscribe(LoopPort subscriber, int trapNumber, Mgid mgid) {
        return subscriptions.removeIf(s -> s.subscriber() == subscriber && s.trapNumber() == trapNumber
                && java.util.Objects.equals(s.mgid(), mgid));
    }

    public List<Subscription> subscriptions() {
        return List.copyOf(subscriptions);
    }

    private void raise(int trap, Mgid mgid) {
        for (Subscription s : subscriptions) {
            if (s.trapNumber() == trap && (s.mgid() == null || s.mgid().equals(mgid))) {
                trapSink.report(s.subscriber(), trap, mgid, s);
            }
        }
    }

    // ---- SM change -----------------------------------------------------------------------------

    /**
     * A new SM takes over: it knows no joins or subscriptions (clients re-register), keeps the
     * configured groups and forgets the others.
     */
    synchronized void forgetClients() {
        generation++;
        subscriptions.clear();
        for (MulticastGroup group : groups()) {
            for (Gid member : group.members().keySet()) {
                group.removeMember(member, 0xF);
            }
            trees.remove(group.mlid);
            if (!group.persistent) {
                groupsByMgid.remove(group.mgid);
                groupsByMlid.compareAndSet(group.mlid - Lid.MULTICAST_BASE, group, null);
            }
        }
    }

    public int generation() {
        return generation;
    }

    // ---- statistics ----------------------------------------------------------------------------

    void count(String request) {
        requestCounters.computeIfAbsent(request, k -> new LongAdder()).increment();
    }

    /** Requests answered, by kind (counted by the SA before it answers or a fault answers for it). */
    public Map<String, Long> requestCounts() {
        Map<String, Long> out = new java.util.TreeMap<>();
        requestCounters.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Every member record of every group, as a trusted GetTable would list them. */
    public List<McMemberRecord> memberRecords() {
        List<McMemberRecord> out = new ArrayList<>();
        for (MulticastGroup g : groups()) {
            g.members().forEach((gid, bits) -> out.add(g.record(gid, bits)));
        }
        return out;
    }
}
