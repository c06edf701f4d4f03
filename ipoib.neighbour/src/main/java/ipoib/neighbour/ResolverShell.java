package ipoib.neighbour;

import ipoib.runtime.ControlLoop;
import ipoib.runtime.Reporter;
import ipoib.runtime.ThreadControlLoop;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;

/**
 * What the ARP and ND resolver components (the DS side) share: the control thread (a named
 * daemon thread, stopped within two seconds), the {@link Reporter} over the OSGi {@link Logger}
 * and {@link EventAdmin}, and configuration checking. The engines they wire take the control loop
 * and the reporter and know nothing of OSGi.
 */
public final class ResolverShell implements Reporter {

    private final Logger log;
    private final ThreadControlLoop control;
    private volatile EventAdmin eventAdmin;

    /**
     * @param label      the protocol's name in log messages ("ARP", "ND")
     * @param threadName the control thread's name
     */
    public ResolverShell(String label, String threadName, Logger log) {
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

    /** Stops the control thread (waiting for it up to two seconds); close the engine first. */
    public void close() {
        control.close();
        try {
            control.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- Reporter -------------------------------------------------------------------------------------

    @Override
    public void debug(String message) {
        log.debug(message);
    }

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
}
