package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The multicast group manager of one link ({@link LinkGroups}, the plain class under the DS
 * component) with its own control thread, for the benchmarks in {@code ipoib.bench} (it lives in
 * the manager's package because the manager is package-private).
 */
public final class BenchGroups implements McastEnvironment, AutoCloseable {
    private final ScheduledThreadPoolExecutor control = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "bench-mcast-control");
        t.setDaemon(true);
        return t;
    });
    private final TrapRegistry traps = new TrapRegistry(this);
    private final int maxGroups;
    private final LinkGroups groups;

    /** A manager of {@code link} that knows up to {@code maxGroups} groups; returns once the link's broadcast group is known. */
    public BenchGroups(MulticastAttachment attachment, int maxGroups) throws Exception {
        IpoibLink link = attachment.link();
        this.maxGroups = maxGroups;
        this.groups = call(() -> {
            LinkGroups g = new LinkGroups(attachment, 10_000, 3, this);
            g.syncWithLink();
            return g;
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (call(() -> groups.decide(link.broadcastGid())).get(10, TimeUnit.SECONDS) != EgressDecision.SEND) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the multicast manager of " + link.name() + " did not come up");
            }
            Thread.sleep(1);
        }
    }

    /** Listener joins of every group (on the control thread, as the component does); completes when all are FullMember. */
    public CompletableFuture<Void> joinAll(List<InetAddress> addresses) throws Exception {
        List<CompletableFuture<GroupInfo>> joins = call(() -> {
            List<CompletableFuture<GroupInfo>> out = new ArrayList<>(addresses.size());
            for (InetAddress a : addresses) {
                out.add(groups.joinListener(a));
            }
            return out;
        });
        return CompletableFuture.allOf(joins.toArray(new CompletableFuture<?>[0]));
    }

    /** The data path's egress decision (RFC 4391 §10) and send, through {@code via}. */
    public TransmitResult send(IpoibLink via, InetAddress group, int etherType, MemorySegment packet) {
        return groups.send(via, group, etherType, packet);
    }

    public EgressDecision decide(Mgid mgid) throws Exception {
        return call(() -> groups.decide(mgid)).get(10, TimeUnit.SECONDS);
    }

    private <T> T call(java.util.concurrent.Callable<T> task) throws Exception {
        return control.submit(task).get(10, TimeUnit.SECONDS);
    }

    @Override public ScheduledExecutorService control() { return control; }
    @Override public int queueLength() { return 64; }
    @Override public int maxGroups() { return maxGroups; }
    @Override public long auditMillis() { return 600_000; }
    @Override public TrapRegistry traps() { return traps; }
    @Override public void postEvent(String topic, Map<String, Object> properties) { }
    @Override public void info(String message) { }
    @Override public void warn(String message) { }

    @Override
    public void close() {
        try {
            call(() -> {
                groups.close();
                return null;
            });
        } catch (Exception ignored) {
            // Closing anyway.
        }
        control.shutdownNow();
    }
}
