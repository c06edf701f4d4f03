package ipoib.bench;

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
import ipoib.api.link.LinkPath;
import ipoib.api.link.MulticastAttachment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.Port;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * An UP link that sends nothing (every send is SENT at once) and hands out paths at once: what is measured above it is the caller's cost alone (e.g. the neighbour lookup).
 */
class NullLink implements IpoibLink, MulticastAttachment {
    final String name;
    final Gid gid;
    final Qpn qpn;

    NullLink(String name, long guid) {
        this(name, guid, 0x11);
    }

    NullLink(String name, long guid, int qpn) {
        this.name = name;
        this.gid = new Gid(Gid.DEFAULT_SUBNET_PREFIX, guid);
        this.qpn = Qpn.of(qpn);
    }

    static PathRecord path(Gid to, Gid from) {
        return new PathRecord(to, from, Lid.of(2), Lid.of(1), 0, PKey.DEFAULT, 0, IbMtu.MTU_2048, Rate.RATE_10_GBPS,
                18, 0, 0);
    }

    @Override public String name() { return name; }
    @Override public LinkState state() { return LinkState.UP; }
    @Override public String stateReason() { return "bench"; }
    @Override public Port port() { return null; }
    @Override public PKey pkey() { return PKey.DEFAULT; }
    @Override public Mgid broadcastGid() { return Mgid.parse("ff12:401b:ffff::ffff:ffff"); }
    @Override public LinkAddress address() { return LinkAddress.of(qpn, gid); }
    @Override public Gid gid() { return gid; }
    @Override public int mtu() { return 2044; }
    @Override public QKey qkey() { return QKey.of(0x0b1b); }
    @Override public int serviceLevel() { return 0; }
    @Override public LinkCounters counters() { return new LinkCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); }
    @Override public Map<String, Long> dropCounters() { return Map.of(); }
    @Override public Qpn qpn() { return qpn; }
    @Override public TransmitResult sendUnicast(LinkPath d, Qpn q, int e, MemorySegment p) { return TransmitResult.SENT; }
    @Override public TransmitResult sendMulticast(Mgid g, int e, MemorySegment p) { return TransmitResult.SENT; }
    @Override public TransmitResult sendBroadcast(int e, MemorySegment p) { return TransmitResult.SENT; }
    @Override public void addMulticastGroup(McMemberRecord joined, boolean receive) { }
    @Override public void removeMulticastGroup(Mgid group) { }
    @Override public boolean hasMulticastGroup(Mgid group) { return false; }
    @Override public IpoibLink link() { return this; }

    /** One path per destination, shared by every acquirer: the engine's own cost is what is measured. */
    private final Map<Gid, LinkPath> paths = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public CompletionStage<LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath) {
        return CompletableFuture.completedFuture(paths.computeIfAbsent(destination, this::nullPath));
    }

    private LinkPath nullPath(Gid destination) {
        PathRecord record = path(destination, gid);
        return (new LinkPath() {
            @Override public Gid destination() { return destination; }
            @Override public PathRecord record() { return record; }
            @Override public int serviceLevel() { return 0; }
            @Override public boolean valid() { return true; }
            @Override public void refresh() { }
            @Override public void release() { }
        });
    }

    @Override public Map<Gid, PathRecord> paths() { return Map.of(); }
}
