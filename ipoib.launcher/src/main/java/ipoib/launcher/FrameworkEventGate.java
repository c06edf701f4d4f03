package ipoib.launcher;

import java.util.Collection;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.hooks.bundle.EventHook;
import org.osgi.framework.hooks.service.EventListenerHook;
import org.osgi.framework.hooks.service.ListenerHook.ListenerInfo;
import org.osgi.service.log.LogLevel;

/**
 * Keeps the framework's bundle and service events from the log service while the framework
 * threshold ({@value ConsoleLog#FRAMEWORK_PROPERTY}, {@code ipoib:log framework}) is above their
 * level. Felix Log records every such event (INFO, a service's MODIFIED at DEBUG) whatever the
 * thresholds, and takes a stack trace for each: about a tenth of an appliance's start for entries
 * nobody sees. Only the log bundle's own unfiltered service listener and its bundle listener are
 * skipped; every other listener, its ServiceTrackers among them, gets every event. Framework events
 * (start, start levels, errors) are few and always reach it.
 */
public final class FrameworkEventGate implements EventListenerHook, EventHook {

    /** The bundle of the log service whose event listeners this gate holds back. */
    static final String LOG_BUNDLE = "org.apache.felix.log";

    private volatile LogLevel threshold;

    FrameworkEventGate(LogLevel threshold) {
        this.threshold = threshold;
    }

    /** The framework threshold now in force. */
    void threshold(LogLevel level) {
        threshold = level;
    }

    @Override
    public void event(ServiceEvent event, Map<BundleContext, Collection<ListenerInfo>> listeners) {
        // Felix Log's levels for service events (org.apache.felix.log.Log.serviceChanged).
        LogLevel level = event.getType() == ServiceEvent.MODIFIED ? LogLevel.DEBUG : LogLevel.INFO;
        if (threshold.implies(level)) {
            return;
        }
        for (Map.Entry<BundleContext, Collection<ListenerInfo>> e : listeners.entrySet()) {
            if (isLogBundle(e.getKey())) {
                e.getValue().removeIf(info -> info.getFilter() == null);
            }
        }
    }

    @Override
    public void event(BundleEvent event, Collection<BundleContext> contexts) {
        // Felix Log logs every bundle event at INFO (org.apache.felix.log.Log.bundleChanged).
        if (!threshold.implies(LogLevel.INFO)) {
            contexts.removeIf(FrameworkEventGate::isLogBundle);
        }
    }

    private static boolean isLogBundle(BundleContext context) {
        try {
            return LOG_BUNDLE.equals(context.getBundle().getSymbolicName());
        } catch (IllegalStateException stopped) {
            return false;
        }
    }
}
