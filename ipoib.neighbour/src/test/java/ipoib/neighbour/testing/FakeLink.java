package ipoib.neighbour.testing;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.LinkAddress;
import ipoib.api.Lid;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.Rate;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.verbs.Port;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * An UP link that records what is sent on it. Its paths come from {@link #pathQuery} (the test
 * answers the PathRecord queries); every reference handed out is kept to check its release.
 * Shared with the ARP and ND unit tests through this module's test jar.
 */
public final class FakeLink implements IpoibLink {
    /** A unicast frame. */
    public record Sent(Path path, int qpn, int etherType, byte[] payload) {}

    /** A frame to the broadcast group (group null) or a multicast group. */
    public record Flooded(Mgid group, int etherType, byte[] payload) {}

    public final String name;
    public final Gid gid;
    public volatile Qpn qpn;
    public volatile LinkState state = LinkState.UP;
    public volatile boolean record = true;
    public volatile Function<Gid, CompletionStage<PathRecord>> pathQuery =
            gid -> CompletableFuture.failedFuture(new IllegalStateException("no path"));
    public final List<Sent> sent = new CopyOnWriteArrayList<>();
    public final List<Flooded> flooded = new CopyOnWriteArrayList<>();
    public final List<Path> acquired = new CopyOnWriteArrayList<>();
    public final java.util.concurrent.atomic.AtomicLong sentCount = new java.util.concurrent.atomic.AtomicLong();
    public final java.util.concurrent.atomic.AtomicLong droppedOnReleased = new java.util.concurrent.atomic.AtomicLong();

    /** A path reference: refreshed through {@link #pathQuery}, released once. */
    public final class Path implements LinkPath {
        final Gid destination;
        final boolean serviceLevelFromPath;
        volatile PathRecord record;
        public volatile boolean released;
        public int refreshes;

        Path(Gid destination, boolean serviceLevelFromPath, PathRecord record) {
            this.destination = destination;
            this.serviceLevelFromPath = serviceLevelFromPath;
            this.record = record;
        }

        @Override public Gid destination() { return destination; }
        @Override public PathRecord record() { return record; }
        @Override public int serviceLevel() { return serviceLevelFromPath ? record.serviceLevel() : FakeLink.this.serviceLevel(); }
        @Override public boolean valid() { return !released; }

        @Override
        public void refresh() {
            refreshes++;
            pathQuery.apply(destination).thenAccept(r -> record = r);
        }

        @Override
        public void release() {
            if (released) {
                throw new AssertionError("a path reference released twice");
            }
            released = true;
        }
    }

    public FakeLink(String name, long guid, int qpn) {
        this.name = name;
        this.gid = new Gid(Gid.DEFAULT_SUBNET_PREFIX, guid);
        this.qpn = Qpn.of(qpn);
    }

    /** A PathRecord to {@code to} with that DLID and SL. */
    public static PathRecord path(Gid to, Gid from, int lid, int sl) {
        return new PathRecord(to, from, Lid.of(lid), Lid.of(1), 0, PKey.DEFAULT, sl, IbMtu.MTU_2048, Rate.RATE_10_GBPS,
                18, 0, 0);
    }

    /** References not released yet. */
    public long held() {
        return acquired.stream().filter(p -> !p.released).count();
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
    public CompletionStage<LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath) {
        return pathQuery.apply(destination).thenApply(r -> {
            Path p = new Path(destination, serviceLevelFromPath, r);
            acquired.add(p);
            return p;
        });
    }

    @Override
    public Map<Gid, PathRecord> paths() {
        Map<Gid, PathRecord> out = new java.util.LinkedHashMap<>();
        acquired.stream().filter(p -> !p.released).forEach(p -> out.put(p.destination, p.record));
        return out;
    }

    @Override
    public TransmitResult sendUnicast(LinkPath path, Qpn remoteQpn, int etherType, MemorySegment payload) {
        Path p = (Path) path;
        if (p.released) {
            // As the link does: a sender that read a route just before it was retired is dropped.
            droppedOnReleased.incrementAndGet();
            return TransmitResult.DROPPED_NO_ROUTE;
        }
        sentCount.incrementAndGet();
        if (record) {
            sent.add(new Sent(p, remoteQpn.value(), etherType, payload.toArray(ValueLayout.JAVA_BYTE)));
        }
        return TransmitResult.SENT;
    }

    @Override
    public TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload) {
        flooded.add(new Flooded(group, etherType, payload.toArray(ValueLayout.JAVA_BYTE)));
        return TransmitResult.SENT;
    }

    @Override
    public TransmitResult sendBroadcast(int etherType, MemorySegment payload) {
        flooded.add(new Flooded(null, etherType, payload.toArray(ValueLayout.JAVA_BYTE)));
        return TransmitResult.SENT;
    }
}
