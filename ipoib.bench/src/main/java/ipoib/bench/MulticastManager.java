package ipoib.bench;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.mcast.internal.McastSettings;
import ipoib.mcast.internal.MulticastEngine;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.Reporter;
import ipoib.runtime.ThreadControlLoop;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The multicast bundle's engine ({@link MulticastEngine}, the plain class under its DS component)
 * on a control thread of its own, following one link: built through the engine's public
 * constructor, as the component builds it.
 */
final class MulticastManager implements AutoCloseable {
    private final ThreadControlLoop control = new ThreadControlLoop("bench-mcast", FailureHandler.JAVA_LOGGING);
    private final MulticastEngine engine;
    private final IpoibLink link;

    /** A manager of {@code link} that knows up to {@code maxGroups} groups; returns once the link's broadcast group is known. */
    MulticastManager(MulticastAttachment attachment, int maxGroups) throws InterruptedException {
        this.link = attachment.link();
        this.engine = new MulticastEngine(control, new McastSettings(64, maxGroups, 600_000), Reporter.SILENT);
        engine.addLink(attachment, 10_000, 3);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!engine.linkNames().contains(link.name())
                || engine.egressDecision(link.name(), link.broadcastGid()) != EgressDecision.SEND) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the multicast manager of " + link.name() + " did not come up");
            }
            Thread.sleep(1);
        }
    }

    /** Listener joins of every group; completes when all are FullMember. */
    CompletableFuture<Void> joinAll(List<InetAddress> addresses) {
        CompletableFuture<?>[] joins = addresses.stream()
                .map(a -> engine.joinListener(link.name(), a).toCompletableFuture())
                .toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(joins);
    }

    /** The data path's egress decision (RFC 4391 §10) and send, through {@code via} (a link of the same name). */
    TransmitResult send(IpoibLink via, InetAddress group, int etherType, MemorySegment packet) {
        return engine.send(via, group, etherType, packet);
    }

    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            control.close();
        }
    }
}
