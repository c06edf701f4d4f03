package ipoib.link.internal;

import ipoib.api.PKey;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.runtime.ManualControlLoop;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Link engines without a framework for the unit tests: the loopback fabric as their provider, their
 * state changes and timers on one manual control loop, so join timeouts, backoff and the handle
 * reaper run when the test moves the clock. The loopback SA answers on its own threads; the test
 * waits for those answers by running the loop until a condition holds.
 */
public final class LinkFixture implements AutoCloseable {
    public final LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5);
    public final ManualControlLoop loop = new ManualControlLoop();
    public final List<String> log = new CopyOnWriteArrayList<>();
    final List<LinkListener.Change> changes = new CopyOnWriteArrayList<>();
    /** The handlers every link of the fixture dispatches to, whatever the EtherType. */
    public volatile FrameHandler[] handlers = new FrameHandler[0];
    final LinkHooks hooks = new LinkHooks() {
        @Override public FrameHandler[] handlers(int etherType) { return handlers; }
        @Override public void notifyListeners(IpoibLink link, LinkListener.Change change) { changes.add(change); }
        @Override public void postEvent(String topic, Map<String, Object> properties) { }
        @Override public void info(String message) { log.add("INFO " + message); }
        @Override public void warn(String message, Throwable cause) { log.add("WARN " + message); }
        @Override public void error(String message, Throwable cause) { log.add("ERROR " + message); }
    };
    private final List<LinkEngine> engines = new ArrayList<>();

    public static LinkConfig config(String name, String device) {
        return new LinkConfig(name, device, 1, PKey.DEFAULT, 2, false, 64, 64, 1000, 5, 5000, true);
    }

    /** An engine on the fixture's loop, not yet given the provider. */
    public LinkEngine engine(LinkConfig config) {
        LinkEngine e = new LinkEngine(config, hooks, loop);
        engines.add(e);
        return e;
    }

    /** An engine on port 1 of {@code device}, UP. */
    LinkEngine up(String name, String device) {
        LinkEngine e = engine(config(name, device));
        e.providerAvailable(subnet);
        until(name + " UP", () -> e.state() == LinkState.UP);
        return e;
    }

    /** Runs the loop until the condition holds (answers come from the fabric's threads). */
    public void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            loop.runPending();
            if (condition.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; log " + log);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** How often the links announced {@code change}. */
    long count(LinkListener.Change change) {
        return changes.stream().filter(c -> c == change).count();
    }

    List<String> warnings() {
        return log.stream().filter(l -> l.startsWith("WARN")).toList();
    }

    @Override
    public void close() {
        for (LinkEngine e : engines) {
            e.close();
        }
        subnet.close();
    }
}
