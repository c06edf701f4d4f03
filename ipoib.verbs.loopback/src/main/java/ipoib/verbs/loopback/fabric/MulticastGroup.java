package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A multicast group as the subnet manager keeps it: its parameters (fixed at creation), its
 * member ports with their join-state bits, and the queue pairs attached to it on every port.
 */
public final class MulticastGroup {
    final Mgid mgid;
    final int mlid;
    final QKey qkey;
    final PKey pkey;
    final IbMtu mtu;
    final Rate rate;
    final int serviceLevel;
    final int flowLabel;
    final int hopLimit;
    final int trafficClass;
    final int packetLifetime;
    /** Created from the partition configuration: stays when its members leave (OpenSM's well-known groups). */
    final boolean persistent;
    /**
     * Whether the emulated SM's membership decides who sends and receives; false for a group an
     * HCA knows only from its queue pairs' attachments (sm=external: the external SM's multicast
     * forwarding tables decide, as on a real subnet, where an HCA checks no membership).
     */
    final boolean checksMembership;
    /**
     * The join states that create a group and keep it alive: FullMember and SendOnlyFullMember
     * (OpenSM 3.3.23 osm_multicast.c:336-414, full_members counts both).
     */
    static final int FULL_BITS = JoinState.FULL_MEMBER.bit() | JoinState.SEND_ONLY_FULL_MEMBER.bit();
    /** Port GID → join-state bits (IBA 15.2.5.17: a member may hold several states at once). */
    private final Map<Gid, Integer> members = new ConcurrentHashMap<>();
    private static final LoopQueuePair[] NONE = new LoopQueuePair[0];
    /** Attached queue pairs, copy-on-write for the data path. */
    private volatile LoopQueuePair[] attached = NONE;
    /**
     * The same by port, copy-on-write: a packet that reaches a port looks up that port's queue
     * pairs instead of passing every attached one, so a copy costs the same with 2 or 1 024 members.
     */
    private volatile Map<LoopPort, LoopQueuePair[]> attachedByPort = Map.of();

    MulticastGroup(McMemberRecord parameters, int mlid, boolean persistent) {
        this(parameters, mlid, persistent, true);
    }

    private MulticastGroup(McMemberRecord parameters, int mlid, boolean persistent, boolean checksMembership) {
        this.checksMembership = checksMembership;
        this.mgid = parameters.mgid();
        this.mlid = mlid;
        this.qkey = parameters.qkey();
        this.pkey = parameters.pkey();
        this.mtu = parameters.mtu();
        this.rate = parameters.rate();
        this.serviceLevel = parameters.serviceLevel();
        this.flowLabel = parameters.flowLabel();
        this.hopLimit = parameters.hopLimit();
        this.trafficClass = parameters.trafficClass();
        this.packetLifetime = parameters.packetLifetime();
        this.persistent = persistent;
    }

    public Mgid mgid() {
        return mgid;
    }

    public Lid mlid() {
        return Lid.of(mlid);
    }

    public boolean persistent() {
        return persistent;
    }

    /** The group's record for a member port (join state of that port, or FullMember as template). */
    public McMemberRecord record(Gid port, int joinStateBits) {
        JoinState state = (joinStateBits & JoinState.FULL_MEMBER.bit()) != 0 ? JoinState.FULL_MEMBER
                : (joinStateBits & JoinState.NON_MEMBER.bit()) != 0 ? JoinState.NON_MEMBER
                : (joinStateBits & JoinState.SEND_ONLY_FULL_MEMBER.bit()) != 0 ? JoinState.SEND_ONLY_FULL_MEMBER
                : JoinState.SEND_ONLY_NON_MEMBER;
        return new McMemberRecord(mgid, port, qkey, Lid.of(mlid), mtu, trafficClass, pkey, rate, packetLifetime,
                serviceLevel, flowLabel, hopLimit, state, false);
    }

    /** Join-state bits of a port, 0 when it is not a member. */
    public int joinState(Gid port) {
        Integer bits = members.get(port);
        return bits == null ? 0 : bits;
    }

    /** Snapshot of the members and their join-state bits. */
    public Map<Gid, Integer> members() {
        return Map.copyOf(members);
    }

    int addMember(Gid port, int bits) {
        return members.merge(port, bits, (a, b) -> a | b);
    }

    /** Removes join-state bits; returns the bits left. */
    int removeMember(Gid port, int bits) {
        Integer left = members.computeIfPresent(port, (k, v) -> (v & ~bits) == 0 ? null : v & ~bits);
        return left == null ? 0 : left;
    }

    boolean hasFullMember() {
        for (int bits : members.values()) {
            if ((bits & FULL_BITS) != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * The group an HCA attached a queue pair to under an external SM: only its MGID and MLID are
     * known here; the other parameters are the SA's, and the SM's forwarding tables decide membership.
     */
    static MulticastGroup attachedOnly(Mgid mgid, int mlid) {
        McMemberRecord parameters = new McMemberRecord(mgid, Gid.ZERO, QKey.of(0), Lid.of(mlid), IbMtu.MTU_2048, 0,
                PKey.of(PKey.FULL_MEMBER_BIT | 0x7fff), Rate.fromCode(3), 0, 0, 0, 0, JoinState.FULL_MEMBER, false);
        return new MulticastGroup(parameters, mlid, false, false);
    }

    /** Whether a port may send to the group: membership of any kind. */
    boolean isMember(Gid port) {
        return !checksMembership || members.containsKey(port);
    }

    /** Whether a port receives the group's traffic: FullMember or NonMember, not SendOnlyNonMember. */
    boolean receives(Gid port) {
        if (!checksMembership) {
            return true;
        }
        Integer bits = members.get(port);
        return bits != null && (bits & (JoinState.FULL_MEMBER.bit() | JoinState.NON_MEMBER.bit())) != 0;
    }

    LoopQueuePair[] attached() {
        return attached;
    }

    /** The queue pairs attached on one port (none: an empty array). */
    LoopQueuePair[] attachedAt(LoopPort port) {
        LoopQueuePair[] at = attachedByPort.get(port);
        return at == null ? NONE : at;
    }

    synchronized void attach(LoopQueuePair qp) {
        for (LoopQueuePair q : attached) {
            if (q == qp) {
                return;
            }
        }
        LoopQueuePair[] next = Arrays.copyOf(attached, attached.length + 1);
        next[attached.length] = qp;
        attached = next;
        indexByPort();
    }

    synchronized void detach(LoopQueuePair qp) {
        List<LoopQueuePair> next = new ArrayList<>(Arrays.asList(attached));
        if (next.remove(qp)) {
            attached = next.toArray(NONE);
            indexByPort();
        }
    }

    private void indexByPort() {
        Map<LoopPort, List<LoopQueuePair>> byPort = new HashMap<>();
        for (LoopQueuePair q : attached) {
            byPort.computeIfAbsent(q.port, k -> new ArrayList<>()).add(q);
        }
        Map<LoopPort, LoopQueuePair[]> index = new HashMap<>();
        byPort.forEach((port, qps) -> index.put(port, qps.toArray(NONE)));
        attachedByPort = Map.copyOf(index);
    }
}
