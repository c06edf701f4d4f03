package ipoib.neighbour;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
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
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.Port;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** An UP link that records what is sent on it. */
final class FakeLink implements IpoibLink {
    record Sent(AddressHandle handle, int qpn, int etherType, byte[] payload) {}

    final String name;
    final Gid gid;
    volatile Qpn qpn;
    volatile LinkState state = LinkState.UP;
    volatile boolean record = true;
    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final List<Handle> handles = new CopyOnWriteArrayList<>();

    final class Handle implements AddressHandle {
        final AddressVector vector;
        volatile boolean closed;

        Handle(AddressVector vector) {
            this.vector = vector;
        }

        @Override
        public AddressVector vector() {
            return vector;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    FakeLink(String name, long guid, int qpn) {
        this.name = name;
        this.gid = new Gid(Gid.DEFAULT_SUBNET_PREFIX, guid);
        this.qpn = Qpn.of(qpn);
    }

    static PathRecord path(Gid to, Gid from, int lid, int sl) {
        return new PathRecord(to, from, Lid.of(lid), Lid.of(1), 0, PKey.DEFAULT, sl, IbMtu.MTU_2048, Rate.RATE_10_GBPS,
                18, 0, 0);
    }

    @Override public String name() { return name; }
    @Override public LinkState state() { return state; }
    @Override public String stateReason() { return "test"; }
    @Override public Port port() { return null; }
    @Override public PKey pkey() { return PKey.DEFAULT; }
    @Override public Mgid broadcastGid() { return Mgid.parse("ff12:401b:ffff::ffff:ffff"); }
    @Override public LinkAddress address() { return LinkAddress.of(qpn, gid); }
    @Override public Gid gid() { return gid; }
    @Override public int mtu() { return 2044; }
    @Override public QKey qkey() { return QKey.of(0x0b1b); }
    @Override public int serviceLevel() { return 2; }
    @Override public LinkCounters counters() { return new LinkCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); }
    @Override public Map<String, Long> dropCounters() { return Map.of(); }
    @Override public Qpn qpn() { return qpn; }

    @Override
    public TransmitResult sendUnicast(AddressHandle destination, Qpn remoteQpn, int etherType, MemorySegment payload) {
        if (((Handle) destination).closed) {
            throw new AssertionError("send on a closed handle");
        }
        if (record) {
            sent.add(new Sent(destination, remoteQpn.value(), etherType, payload.toArray(ValueLayout.JAVA_BYTE)));
        }
        return TransmitResult.SENT;
    }

    @Override
    public TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        return TransmitResult.SENT;
    }

    @Override
    public TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        return TransmitResult.SENT;
    }

    @Override public void addMulticastGroup(McMemberRecord joined, boolean receive) {}
    @Override public void removeMulticastGroup(Mgid group) {}
    @Override public boolean hasMulticastGroup(Mgid group) { return false; }

    @Override
    public AddressHandle createAddressHandle(PathRecord path, int serviceLevel) {
        Handle h = new Handle(new AddressVector(path.destinationLid(), serviceLevel, path.rate(), false, null, 0, 0, 0, 0));
        handles.add(h);
        return h;
    }
}
