package ipoib.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The appliance's default configurations, applied: the Configurator stores those of the
 * {@value DefaultsSwitch#DEFAULTS_BUNDLE} bundle on its own thread after that bundle started, so
 * a script or a prompt that comes at once would find no interface configured yet. This waits,
 * boundedly, until configuration admin holds each PID of the bundle's Configurator JSON, looking
 * again at each configuration event.
 */
final class DefaultsApplied {
    /** A top-level entry whose value is an object: a configuration's PID (the ":configurator:" keys are not). */
    private static final Pattern PID = Pattern.compile("\"([^\"]+)\"\\s*:\\s*\\{");

    private DefaultsApplied() {
    }

    /** The PIDs a Configurator JSON resource configures. */
    static List<String> pids(String json) {
        List<String> pids = new ArrayList<>();
        Matcher m = PID.matcher(json);
        while (m.find()) {
            if (!m.group(1).startsWith(":configurator:")) {
                pids.add(m.group(1));
            }
        }
        return pids;
    }

    /**
     * Waits up to {@code millis} until the defaults bundle, when it is active, has its
     * configurations stored; returns at once without it (ipoib.defaults=false). A configuration
     * the component refused and deleted is not waited for beyond the bound.
     */
    static void await(BundleContext context, long millis) throws InterruptedException {
        List<String> pids = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            if (DefaultsSwitch.DEFAULTS_BUNDLE.equals(b.getSymbolicName()) && b.getState() == Bundle.ACTIVE) {
                pids.addAll(pids(b));
            }
        }
        if (pids.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + millis * 1_000_000;
        ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> tracker = new ServiceTracker<>(context, ConfigurationAdmin.class,
                null);
        tracker.open();
        // Every configuration event wakes the wait, which then looks again: registered before the
        // first look, so that a configuration stored in between is not missed.
        Object changed = new Object();
        ServiceRegistration<ConfigurationListener> listener = context.registerService(ConfigurationListener.class,
                event -> {
                    synchronized (changed) {
                        changed.notifyAll();
                    }
                }, null);
        try {
            ConfigurationAdmin admin = tracker.waitForService(millis);
            synchronized (changed) {
                long left;
                while (admin != null && !stored(admin, pids) && (left = deadline - System.nanoTime()) > 0) {
                    changed.wait(Math.max(1, left / 1_000_000));
                }
            }
        } finally {
            listener.unregister();
            tracker.close();
        }
    }

    private static boolean stored(ConfigurationAdmin admin, List<String> pids) {
        for (String pid : pids) {
            try {
                if (admin.listConfigurations("(service.pid=" + pid + ")") == null) {
                    return false;
                }
            } catch (IOException | InvalidSyntaxException e) {
                return true; // nothing to wait for that could be seen
            }
        }
        return true;
    }

    private static List<String> pids(Bundle bundle) {
        List<String> pids = new ArrayList<>();
        Enumeration<URL> entries = bundle.findEntries("OSGI-INF/configurator", "*.json", false);
        while (entries != null && entries.hasMoreElements()) {
            try (InputStream in = entries.nextElement().openStream()) {
                pids.addAll(pids(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            } catch (IOException e) {
                // Unreadable: nothing to wait for.
            }
        }
        return pids;
    }
}
