package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.LinkAddress;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.Rate;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.codec.mcast.MulticastMapping;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * An IPoIB link for the group manager's tests: UP on a port whose SA is a {@link FakeSa}; it
 * keeps the routes the manager adds and the frames sent through them.
 */
final class FakeLink implements IpoibLink, ipoib.api.link.MulticastAttachment {
    /** A frame the link sent: to which group, and its text. */
    record Sent(Mgid group, String text) {}

    final String name;
    final FakeSa sa;
    final Gid gid;
    volatile LinkState state = LinkState.UP;
    volatile PKey pkey = PKey.DEFAULT;
    volatile int qpn;
    /** Routes the manager added: MGID → whether the queue pair was attached to receive. */
    final Map<Mgid, Boolean> routes = new ConcurrentHashMap<>();
    /** The MLID each route was added with. */
    final Map<Mgid, ipoib.api.Lid> mlids = new ConcurrentHashMap<>();
    final List<Sent> sent = new CopyOnWriteArrayList<>();
    /** When false, sends are only counted (the allocation test). */
    volatile boolean record = true;
    long sendCount;
    private final Port port;

    FakeLink(String name, FakeSa sa, long guid, int qpn) {
        this.name = name;
        this.sa = sa;
        this.gid = new Gid(Gid.DEFAULT_SUBNET_PREFIX, guid);
        this.qpn = qpn;
        this.port = new FakePort(sa);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LinkState state() {
        return state;
    }

    @Override
    public String stateReason() {
        return "test";
    }

    @Override
    public Port port() {
        return port;
    }

    @Override
    public PKey pkey() {
        return pkey;
    }

    @Override
    public Mgid broadcastGid() {
        return MulticastMapping.broadcastGid(pkey.asFullMember());
    }

    /** The broadcast group as the fake SA made it. */
    @Override
    public McMemberRecord broadcastGroup() {
        return state == LinkState.UP ? sa.broadcastRecord(broadcastGid()).forMember(gid, JoinState.FULL_MEMBER) : null;
    }

    @Override
    public LinkAddress address() {
        return state == LinkState.UP ? LinkAddress.of(new Qpn(qpn), gid) : null;
    }

    @Override
    public Gid gid() {
        return state == LinkState.UP ? gid : null;
    }

    @Override
    public int mtu() {
        return state == LinkState.UP ? 2044 : 0;
    }

    @Override
    public QKey qkey() {
        return QKey.of(0x0b1b);
    }

    @Override
    public int serviceLevel() {
        return 0;
    }

    @Override
    public LinkCounters counters() {
        return new LinkCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Override
    public Map<String, Long> dropCounters() {
        return Map.of();
    }

    @Override
    public Qpn qpn() {
        return state == LinkState.UP ? new Qpn(qpn) : null;
    }

    @Override
    public TransmitResult sendUnicast(ipoib.api.link.LinkPath destination, Qpn remoteQpn, int etherType, MemorySegment payload) {
        throw new UnsupportedOperationException();
    }

    @Override
    public TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        if (state != LinkState.UP) {
            return TransmitResult.DROPPED_LINK_DOWN;
        }
        if (!routes.containsKey(group)) {
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        sendCount++;
        if (record) {
            sent.add(new Sent(group, new String(payload.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII)));
        }
        return TransmitResult.SENT;
    }

    @Override
    public TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        if (state != LinkState.UP) {
            return TransmitResult.DROPPED_LINK_DOWN;
        }
        sent.add(new Sent(broadcastGid(), new String(payload.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII)));
        return TransmitResult.SENT;
    }

    @Override
    public void addMulticastGroup(McMemberRecord joined, boolean receive) {
        if (state != LinkState.UP) {
            throw new IllegalStateException("link " + name + " is " + state);
        }
        routes.put(joined.mgid(), receive);
        mlids.put(joined.mgid(), joined.mlid());
    }

    @Override
    public void removeMulticastGroup(Mgid group) {
        routes.remove(group);
    }

    @Override
    public boolean hasMulticastGroup(Mgid group) {
        return routes.containsKey(group);
    }

    @Override
    public java.util.concurrent.CompletionStage<ipoib.api.link.LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath) {
        return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException("no paths"));
    }

    @Override
    public Map<Gid, PathRecord> paths() {
        return Map.of();
    }

    @Override
    public IpoibLink link() {
        return this;
    }

    /** A port that only has a subnet administrator. */
    private static final class FakePort implements Port {
        private final SubnetAdministrator sa;

        FakePort(SubnetAdministrator sa) {
            this.sa = sa;
        }

        @Override
        public Device device() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int number() {
            return 1;
        }

        @Override
        public PortAttributes attributes() {
            return new PortAttributes(ipoib.api.verbs.PortState.ACTIVE, Lid.of(2), 0, Lid.of(1), 0, IbMtu.MTU_2048,
                    IbMtu.MTU_4096, Rate.RATE_10_GBPS, Gid.DEFAULT_SUBNET_PREFIX, 1, 1);
        }

        @Override
        public Gid gid(int index) {
            throw new UnsupportedOperationException();
        }

        @Override
        public PKeyTable pkeyTable() {
            return PKeyTable.of(0xffff);
        }

        @Override
        public AutoCloseable addEventListener(Consumer<PortEvent> listener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletionQueue createCompletionQueue(int capacity) {
            throw new UnsupportedOperationException();
        }

        @Override
        public UdQueuePair createUdQueuePair(UdQueuePairConfig config) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AddressHandle createAddressHandle(AddressVector vector) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MadTransport madTransport() {
            throw new UnsupportedOperationException();
        }

        @Override
        public SubnetAdministrator subnetAdministrator() {
            return sa;
        }
    }
}
