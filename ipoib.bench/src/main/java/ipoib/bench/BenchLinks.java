package ipoib.bench;

import ipoib.api.PKey;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.verbs.VerbsProvider;
import ipoib.link.internal.LinkConfig;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkHooks;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * IPoIB interfaces for the benchmarks: the link bundle's engine ({@link LinkEngine}, the plain
 * class under its DS component) built through its public constructor, as the component builds
 * it, with one frame handler per EtherType and java.util.logging for its log.
 */
final class BenchLinks {
    private static final Logger LOG = Logger.getLogger(BenchLinks.class.getName());
    /** Send and receive queue depth of every benchmark link. */
    static final int QUEUE_DEPTH = 256;

    private BenchLinks() {
    }

    /**
     * Starts an interface on port 1 of {@code device} (default partition) and waits until it is UP.
     *
     * @throws IllegalStateException when the interface is not UP within 10 s
     */
    static LinkEngine open(VerbsProvider provider, String name, String device, Map<Integer, FrameHandler> handlers)
            throws InterruptedException {
        LinkConfig config = LinkConfig.of(name, device, 1, PKey.DEFAULT).withQueueDepths(QUEUE_DEPTH, QUEUE_DEPTH);
        LinkEngine link = new LinkEngine(config, new Hooks(handlers));
        link.providerAvailable(provider);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (link.state() != LinkState.UP) {
            if (System.nanoTime() > deadline) {
                String why = link.stateReason();
                link.close();
                throw new IllegalStateException(name + " not UP within 10 s: " + why);
            }
            LockSupport.parkNanos(1_000_000); // the link's control thread answers; no spin
        }
        return link;
    }

    /**
     * Switches a link to connected mode and waits until it runs (its MTU says so).
     *
     * @throws IllegalStateException when connected mode does not run within 10 s, with the reason
     */
    static void connectedMode(LinkEngine link) throws InterruptedException {
        link.setConnectedMode(true);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (link.mtu() != 65520) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(link.name() + " not in connected mode within 10 s: " + link.mode());
            }
            LockSupport.parkNanos(1_000_000); // the link's control thread answers; no spin
        }
    }

    /** The engine's surroundings without a framework: handlers looked up by EtherType in an array (no boxing). */
    private static final class Hooks implements LinkHooks {
        private static final FrameHandler[] NONE = new FrameHandler[0];
        private final FrameHandler[][] byEtherType = new FrameHandler[0x10000][];

        Hooks(Map<Integer, FrameHandler> handlers) {
            handlers.forEach((type, handler) -> byEtherType[type] = new FrameHandler[] {handler});
        }

        @Override
        public FrameHandler[] handlers(int etherType) {
            FrameHandler[] h = byEtherType[etherType];
            return h == null ? NONE : h;
        }

        @Override
        public void notifyListeners(IpoibLink link, LinkListener.Change change) {
            LOG.fine(() -> link.name() + " " + change);
        }

        @Override
        public void postEvent(String topic, Map<String, Object> properties) {
            LOG.fine(() -> topic + " " + properties);
        }

        @Override
        public void info(String message) {
            LOG.info(message);
        }

        @Override
        public void warn(String message, Throwable cause) {
            LOG.log(Level.WARNING, message, cause);
        }

        @Override
        public void error(String message, Throwable cause) {
            LOG.log(Level.SEVERE, message, cause);
        }
    }
}
