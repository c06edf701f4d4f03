package ipoib.neighbour;

import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.ThreadControlLoop;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;

/**
 * What the ARP and ND resolver components share around their {@link NeighbourEngine}: the
 * control thread (a named daemon thread, stopped within two seconds), the guarded task runner,
 * the engine's timer (rescheduled when its period changes), the {@link Reporter} over the OSGi
 * {@link Logger} and {@link EventAdmin}, configuration checking, and the links the component
 * is bound to. The components keep their DS annotations and delegate here.
 */
public final class ResolverShell implements Reporter {

    private final String label;
    private final Logger log;
    private final ThreadControlLoop control;
    private final Map<String, IpoibLink> links = new ConcurrentHashMap<>();
    private volatile EventAdmin eventAdmin;
    private NeighbourEngine engine;
    private Runnable tick;
    private Cancellable ticker;
    private long tickMillis;

    /**
     * @param label      the protocol's name in log messages ("ARP", "ND")
     * @param threadName the control thread's name
     */
    public ResolverShell(String label, String threadName, Logger log) {
        this.label = label;
        this.log = log;
        this.control = new ThreadControlLoop(threadName, (message, failure) -> log.error(label + " " + message, failure));
    }

    /** Checks a configuration on activation: an invalid one is logged and its exception thrown. */
    public static <T> T activation(Logger log, Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            log.error(e.getMessage());
            throw e;
        }
    }

    /** Checks a modified configuration: null (logged) when it is invalid and the previous one stays. */
    public <T> T modification(Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            log.error(e.getMessage() + " (the previous configuration stays in force)");
            return null;
        }
    }

    /** The control loop, for the engine. */
    public ControlLoop control() {
        return control;
    }

    /** Starts the timer: {@code tick} every {@code millis} on the control thread. */
    public synchronized void start(NeighbourEngine engine, long millis, Runnable tick) {
        this.engine = engine;
        this.tick = tick;
        schedule(millis);
    }

    /** A new timer period: the timer is rescheduled when it differs from the current one. */
    public synchronized void tickMillis(long millis) {
        if (millis != tickMillis) {
            ticker.cancel();
            schedule(millis);
        }
    }

    private void schedule(long millis) {
        tickMillis = millis;
        Runnable work = tick;
        Cancellable[] next = new Cancellable[1];
        boolean[] stopped = new boolean[1];
        Runnable[] again = new Runnable[1];
        again[0] = () -> {
            if (stopped[0]) {
                return;
            }
            try {
                work.run();
            } finally {
                synchronized (this) {
                    if (!stopped[0]) {
                        next[0] = control.schedule(again[0], millis, TimeUnit.MILLISECONDS);
                    }
                }
            }
        };
        next[0] = control.schedule(again[0], millis, TimeUnit.MILLISECONDS);
        ticker = () -> {
            synchronized (this) {
                stopped[0] = true;
                next[0].cancel();
            }
        };
    }

    /** Runs a task on the control thread; a failure is logged, and nothing runs once stopping. */
    public void run(Runnable task) {
        control.execute(task);
    }

    /** Closes the engine and stops the control thread (waiting for it up to two seconds). */
    public void close() {
        engine.close();
        control.close();
        try {
            control.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- Reporter -------------------------------------------------------------------------------------

    @Override
    public void info(String message) {
        log.info(message);
    }

    @Override
    public void warn(String message) {
        log.warn(message);
    }

    @Override
    public void error(String message) {
        log.error(message);
    }

    @Override
    public void event(String topic, Map<String, Object> properties) {
        EventAdmin admin = eventAdmin;
        if (admin != null) {
            admin.postEvent(new Event(topic, properties));
        }
    }

    public void setEventAdmin(EventAdmin admin) {
        this.eventAdmin = admin;
    }

    public void unsetEventAdmin(EventAdmin admin) {
        if (this.eventAdmin == admin) {
            this.eventAdmin = null;
        }
    }

    // ---- links ----------------------------------------------------------------------------------------

    /** A link was bound: tracked, and brought up in the engine when UP. Returns whether it is UP. */
    public boolean addLink(IpoibLink link) {
        links.put(link.name(), link);
        if (link.state() == LinkState.UP) {
            engine.linkUp(link);
            return true;
        }
        return false;
    }

    /** A link was unbound: forgotten, and down in the engine. */
    public void removeLink(IpoibLink link) {
        links.remove(link.name(), link);
        engine.linkDown(link);
    }

    /** A link came UP. */
    public void linkUp(IpoibLink link) {
        links.putIfAbsent(link.name(), link);
        engine.linkUp(link);
    }

    /** The bound link of that name, or null. */
    public IpoibLink link(String name) {
        return links.get(name);
    }

    /** The bound links. */
    public Collection<IpoibLink> links() {
        return links.values();
    }

    /** The link's MTU when it is bound and UP, else 0. */
    public int upMtu(String name) {
        IpoibLink link = links.get(name);
        return link == null || link.state() != LinkState.UP ? 0 : link.mtu();
    }

    /** Throws unless a link of that name is bound. */
    public void requireLink(String name) {
        if (!links.containsKey(name)) {
            throw new IllegalArgumentException("no interface '" + name + "' (known: "
                    + String.join(", ", links.keySet().stream().sorted().toList()) + ")");
        }
    }

    /** Throws unless the address can be a neighbour's: a unicast QPN and port GID. */
    public static void requireUnicast(LinkAddress linkAddress) {
        if (linkAddress == null || linkAddress.isMulticast() || linkAddress.gid().isMulticast()) {
            throw new IllegalArgumentException("a neighbour's link-layer address is a unicast QPN and port GID, not "
                    + linkAddress);
        }
    }
}
