package ipoib.neighbour;

import ipoib.runtime.ControlLoop;
import ipoib.runtime.Reporter;
import ipoib.runtime.ThreadControlLoop;
import ipoib.runtime.config.LastGoodConfiguration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;

/**
 * What the ARP and ND resolver components (the DS side) share: the control thread (a named
 * daemon thread, stopped within two seconds), the {@link Reporter} over the OSGi {@link Logger}
 * and {@link EventAdmin}, and configuration checking: a refused configuration changes nothing that
 * runs and is not left stored ({@link LastGoodConfiguration}). The engines they wire take the
 * control loop and the reporter and know nothing of OSGi.
 */
public final class ResolverShell implements Reporter {

    private final Logger log;
    private final ThreadControlLoop control;
    private final LastGoodConfiguration lastGood;
    private volatile EventAdmin eventAdmin;

    /**
     * @param label      the protocol's name in log messages ("ARP", "ND")
     * @param threadName the control thread's name
     * @param admin      where a refused configuration is replaced by the one in force
     */
    public ResolverShell(String label, String threadName, Logger log, ConfigurationAdmin admin) {
        this.log = log;
        this.control = new ThreadControlLoop(threadName, (message, failure) -> log.error(label + " " + message, failure));
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(admin);
    }

    /**
     * Checks the configuration of an activation. A refused one is never thrown (Declarative
     * Services would log "Error during instantiation" and leave the resolver out): one WARN line
     * says why, the configuration is deleted, and the defaults run.
     */
    public <T> T activation(Map<String, ?> properties, Supplier<T> check, Supplier<T> defaults) {
        try {
            T checked = check.get();
            lastGood.accepted(properties);
            return checked;
        } catch (IllegalArgumentException e) {
            lastGood.refused(properties, e.getMessage());
            return defaults.get();
        }
    }

    /**
     * Checks a modified configuration: null when it is refused, and then the one in force stays
     * and is stored again (one WARN line).
     */
    public <T> T modification(Map<String, ?> properties, Supplier<T> check) {
        try {
            T checked = check.get();
            lastGood.accepted(properties);
            return checked;
        } catch (IllegalArgumentException e) {
            lastGood.refused(properties, e.getMessage());
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
