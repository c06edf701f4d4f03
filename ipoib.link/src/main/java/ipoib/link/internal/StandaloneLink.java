package ipoib.link.internal;

import ipoib.api.PKey;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.verbs.VerbsProvider;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An IPoIB interface without an OSGi framework, for embedding in plain Java and for the
 * benchmarks: the same engine the DS component runs, with one frame handler per EtherType and
 * java.util.logging for its log. Not exported: reachable only on a plain class path.
 */
public final class StandaloneLink implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StandaloneLink.class.getName());

    private final LinkEngine engine;
    private final HandlerTable handlers;

    private StandaloneLink(LinkConfig config, Map<Integer, FrameHandler> handlersByEtherType) {
        this.handlers = HandlerTable.ofSingle(handlersByEtherType);
        this.engine = new LinkEngine(config, new LinkHooks() {
            @Override
            public FrameHandler[] handlers(int etherType) {
                return handlers.get(etherType);
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
        });
    }

    /**
     * Starts an interface on a provider's device and port and waits until it is UP.
     *
     * @param handlersByEtherType the frame handler of each EtherType received
     * @throws IllegalStateException when the interface is not UP within {@code timeoutMillis}
     */
    public static StandaloneLink open(VerbsProvider provider, String name, String device, int port, PKey pkey,
                                      int sendQueueDepth, int receiveQueueDepth,
                                      Map<Integer, FrameHandler> handlersByEtherType, long timeoutMillis)
            throws InterruptedException {
        LinkConfig.checkPort(port);
        LinkConfig.checkName(name);
        LinkConfig config = new LinkConfig(name, device, port, pkey, 2, false, sendQueueDepth, receiveQueueDepth,
                1000, 5, 5000, true);
        StandaloneLink link = new StandaloneLink(config, handlersByEtherType);
        link.engine.providerAvailable(provider);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (link.engine.state() != LinkState.UP) {
            if (System.nanoTime() > deadline) {
                String why = link.engine.stateReason();
                link.close();
                throw new IllegalStateException(name + " not UP within " + timeoutMillis + " ms: " + why);
            }
            Thread.sleep(1);
        }
        return link;
    }

    /** The interface. */
    public IpoibLink link() {
        return engine;
    }

    /**
     * Switches between datagram and connected mode and waits until the switch took effect (the MTU
     * says so).
     *
     * @throws IllegalStateException when connected mode does not run within 10 s (the reason given)
     */
    public void setConnectedMode(boolean connected) throws InterruptedException {
        engine.setConnectedMode(connected);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((engine.connectedMode() != null) != connected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(engine.name() + " not in " + (connected ? "connected" : "datagram")
                        + " mode within 10 s: " + engine.mode());
            }
            Thread.sleep(1);
        }
    }

    /**
     * Sets up a new connection to {@code peer} (tearing down the current one) by sending it
     * {@code frame}, and returns the time from the REQ to the RTU in nanoseconds.
     *
     * @throws IllegalStateException when the interface is not in connected mode or the connection
     *     does not come up within 10 s
     */
    public long connectionSetupNanos(ipoib.api.link.LinkPath path, ipoib.api.LinkAddress peer, int etherType,
                                     java.lang.foreign.MemorySegment frame) throws InterruptedException {
        ConnectedMode cm = engine.connectedMode();
        if (cm == null || !(path instanceof PathEntry.Reference ref)) {
            throw new IllegalStateException(engine.name() + " is not in connected mode (" + engine.mode() + ")");
        }
        CmLinkConnection old = ref.entry.connection;
        if (old != null) {
            cm.disconnect(old);
        }
        engine.sendUnicast(path, peer, etherType, frame);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            CmLinkConnection c = ref.entry.connection;
            if (c != null && c != old && c.state == CmLinkConnection.State.UP) {
                return c.setupNanos;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no connection from " + engine.name() + " within 10 s: " + c);
            }
            Thread.onSpinWait();
        }
    }

    /** The interface's multicast-attach role (for a multicast manager). */
    public MulticastAttachment multicast() {
        return new LinkMulticast(engine);
    }

    @Override
    public void close() {
        engine.close();
    }
}
