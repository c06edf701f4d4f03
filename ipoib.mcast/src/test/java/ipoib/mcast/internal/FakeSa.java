package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaCapabilities;
import ipoib.api.sa.SaStatus;
import ipoib.api.sa.SubnetAdministrator;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A subnet administrator with OpenSM's multicast rules, in memory: a join of a missing group
 * fails with ERR_REQ_INSUFFICIENT_COMPONENTS, a create makes the group (trap 66), the last
 * FullMember's leave deletes it (trap 67). Answers come at once, or wait while {@link #hold} is
 * set, or fail with {@link #failStatus}. Every request is written to {@link #requests}.
 */
final class FakeSa implements SubnetAdministrator {

    /** A subscription: trap type and listener. */
    record Subscription(GroupTrap.Type type, Consumer<GroupTrap> listener) {}

    private final Map<Mgid, McMemberRecord> groups = new LinkedHashMap<>();
    private final Map<Mgid, Map<Gid, Set<JoinState>>> members = new LinkedHashMap<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<McMemberRecord> creates = new CopyOnWriteArrayList<>();
    final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final List<Runnable> held = new ArrayList<>();
    private int nextMlid = 0xC001;
    /** Answers wait until {@link #release()}. */
    volatile boolean hold;
    /** When not 0, every request fails with this MAD status. */
    volatile int failStatus;
    /** Traps are lost (an SM restart, a full queue). */
    volatile boolean loseTraps;
    /** Group queries see nothing, as an SA shows an untrusted requester only its own memberships. */
    volatile boolean untrusted;
    /** What ClassPortInfo answers; null: the SA does not answer it (nor accepts SendOnlyFullMember). */
    volatile SaCapabilities capabilities;

    @Override
    public CompletionStage<SaCapabilities> capabilities() {
        SaCapabilities caps = capabilities;
        return caps == null ? SubnetAdministrator.super.capabilities()
                : answer("capabilities", () -> caps);
    }

    /** A group that exists (made by someone else), with the parameters of the broadcast group. */
    synchronized McMemberRecord addGroup(Mgid mgid, Gid member) {
        McMemberRecord r = new McMemberRecord(mgid, member, QKey.of(0x0b1b), Lid.of(nextMlid++), IbMtu.MTU_2048, 0,
                PKey.of(0xffff), Rate.RATE_10_GBPS, 0x12, 0, 0, 0, JoinState.FULL_MEMBER, false);
        groups.put(mgid, r);
        members.computeIfAbsent(mgid, m -> new LinkedHashMap<>()).computeIfAbsent(member,
                g -> EnumSet.noneOf(JoinState.class)).add(JoinState.FULL_MEMBER);
        trap(GroupTrap.Type.CREATED, mgid);
        return r;
    }

    /** The broadcast group: made on first use, with recognisable parameters (SL 3, flow label 5, ...). */
    synchronized McMemberRecord broadcastRecord(Mgid mgid) {
        return groups.computeIfAbsent(mgid, m -> new McMemberRecord(m, Gid.ZERO, QKey.of(0x0b1b), Lid.of(0xC000),
                IbMtu.MTU_2048, 7, PKey.of(0xffff), Rate.RATE_40_GBPS, 0x12, 3, 5, 2, JoinState.FULL_MEMBER, false));
    }

    /** Someone else leaves: a group without FullMember is deleted (trap 67). */
    synchronized void removeMember(Mgid mgid, Gid member) {
        Map<Gid, Set<JoinState>> m = members.get(mgid);
        if (m != null) {
            m.remove(member);
            deleteIfNoFullMember(mgid);
        }
    }

    /** An SM change: every join and subscription forgotten, groups gone (no traps: nobody listens). */
    synchronized void forgetEverything() {
        subscriptions.clear();
        members.clear();
        groups.keySet().removeIf(m -> !ipoib.codec.mcast.MulticastMapping.isBroadcastGid(m));
    }

    synchronized Set<JoinState> membership(Mgid mgid, Gid port) {
        Map<Gid, Set<JoinState>> m = members.get(mgid);
        Set<JoinState> s = m == null ? null : m.get(port);
        return s == null ? Set.of() : Set.copyOf(s);
    }

    synchronized boolean exists(Mgid mgid) {
        return groups.containsKey(mgid) && !ipoib.codec.mcast.MulticastMapping.isBroadcastGid(mgid);
    }

    /** Answers the requests held back, in order. */
    void release() {
        List<Runnable> now;
        synchronized (this) {
            hold = false;
            now = new ArrayList<>(held);
            held.clear();
        }
        now.forEach(Runnable::run);
    }

    private <T> CompletionStage<T> answer(String request, java.util.function.Supplier<T> work) {
        requests.add(request);
        CompletableFuture<T> f = new CompletableFuture<>();
        Runnable r = () -> {
            int status = failStatus;
            if (status != 0) {
                f.completeExceptionally(new SaException(request, status));
                return;
            }
            try {
                T value;
                synchronized (this) {
                    value = work.get();
                }
                f.complete(value);
            } catch (StatusException e) {
                f.completeExceptionally(new SaException(request, e.status));
            }
        };
        synchronized (this) {
            if (hold) {
                held.add(r);
                return f;
            }
        }
        r.run();
        return f;
    }

    private static final class StatusException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int status;

        StatusException(int status) {
            super(null, null, false, false);
            this.status = status;
        }
    }

    @Override
    public CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionStage<McMemberRecord> join(Mgid mgid, Gid portGid, JoinState state) {
        return answer("join " + mgid + " " + state, () -> {
            McMemberRecord g = groups.get(mgid);
            if (g == null) {
                throw new StatusException(SaStatus.INSUFFICIENT_COMPONENTS);
            }
            addMember(mgid, portGid, state);
            return g.forMember(portGid, state);
        });
    }

    @Override
    public CompletionStage<McMemberRecord> create(McMemberRecord template) {
        return answer("create " + template.mgid() + " " + template.joinState(), () -> {
            creates.add(template);
            Mgid mgid = template.mgid();
            JoinState state = template.joinState();
            if (state != JoinState.FULL_MEMBER && state != JoinState.SEND_ONLY_FULL_MEMBER) {
                throw new StatusException(SaStatus.REQUEST_INVALID);
            }
            if (state == JoinState.SEND_ONLY_FULL_MEMBER && capabilities == null) {
                throw new StatusException(SaStatus.REQUEST_INVALID); // an SA without the support
            }
            McMemberRecord g = groups.get(mgid);
            if (g == null) {
                g = new McMemberRecord(mgid, template.portGid(), template.qkey(), Lid.of(nextMlid++), template.mtu(),
                        template.trafficClass(), template.pkey(), template.rate(), template.packetLifetime(),
                        template.serviceLevel(), template.flowLabel(), template.hopLimit(), JoinState.FULL_MEMBER, false);
                groups.put(mgid, g);
                addMember(mgid, template.portGid(), state);
                trap(GroupTrap.Type.CREATED, mgid);
            } else {
                addMember(mgid, template.portGid(), state);
            }
            return g.forMember(template.portGid(), state);
        });
    }

    @Override
    public CompletionStage<Void> leave(Mgid mgid, Gid portGid, JoinState state) {
        return answer("leave " + mgid + " " + state, () -> {
            Map<Gid, Set<JoinState>> m = members.get(mgid);
            Set<JoinState> s = m == null ? null : m.get(portGid);
            if (s == null || !s.remove(state)) {
                throw new StatusException(SaStatus.NO_RECORDS);
            }
            if (s.isEmpty()) {
                m.remove(portGid);
            }
            deleteIfNoFullMember(mgid);
            return null;
        });
    }

    @Override
    public CompletionStage<Optional<McMemberRecord>> group(Mgid mgid) {
        return answer("group " + mgid, () -> untrusted ? Optional.empty() : Optional.ofNullable(groups.get(mgid)));
    }

    @Override
    public CompletionStage<List<McMemberRecord>> groups() {
        return answer("groups", () -> {
            List<McMemberRecord> out = new ArrayList<>();
            members.forEach((mgid, m) -> m.forEach((gid, states) -> {
                for (JoinState s : states) {
                    out.add(groups.get(mgid).forMember(gid, s));
                }
            }));
            return out;
        });
    }

    @Override
    public CompletionStage<AutoCloseable> subscribe(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener) {
        return answer("subscribe " + type, () -> {
            Subscription s = new Subscription(type, listener);
            subscriptions.add(s);
            return (AutoCloseable) () -> subscriptions.remove(s);
        });
    }

    private void addMember(Mgid mgid, Gid port, JoinState state) {
        members.computeIfAbsent(mgid, m -> new LinkedHashMap<>()).computeIfAbsent(port,
                g -> EnumSet.noneOf(JoinState.class)).add(state);
    }

    private void deleteIfNoFullMember(Mgid mgid) {
        if (ipoib.codec.mcast.MulticastMapping.isBroadcastGid(mgid)) {
            return;
        }
        Map<Gid, Set<JoinState>> m = members.get(mgid);
        boolean full = m != null && m.values().stream().anyMatch(s -> s.contains(JoinState.FULL_MEMBER)
                || s.contains(JoinState.SEND_ONLY_FULL_MEMBER));
        if (!full && groups.remove(mgid) != null) {
            members.remove(mgid);
            trap(GroupTrap.Type.DELETED, mgid);
        }
    }

    private void trap(GroupTrap.Type type, Mgid mgid) {
        if (loseTraps) {
            return;
        }
        for (Subscription s : subscriptions) {
            if (s.type() == type) {
                s.listener().accept(new GroupTrap(type, mgid, mgid.gid()));
            }
        }
    }
}
