package ipoib.netdev.internal;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The bridged interfaces of this bundle, by interface name, for the shell command (which reports
 * an activation's failure from here) and for the JVM exit: Gogo's {@code exit} ends the JVM
 * without stopping the framework, so a shutdown hook closes the devices still open and removes
 * the namespaces this appliance created. Bundle-wide state: the bundle's class loader scopes it.
 */
final class Registry {
    /** One daemon thread for every device's reconciliation (a few {@code ip} commands every few seconds). */
    static final ScheduledExecutorService SCHEDULER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ipoib-netdev-sync");
        t.setDaemon(true);
        return t;
    });

    private static final Map<String, NetdevComponent> LIVE = new ConcurrentHashMap<>();
    private static final Map<String, String> FAILURES = new ConcurrentHashMap<>();
    private static Thread exitHook;

    private Registry() {}

    static synchronized void up(NetdevComponent c) {
        FAILURES.remove(c.link());
        LIVE.put(c.link(), c);
        if (exitHook == null) {
            exitHook = new Thread(Registry::closeAll, "ipoib-netdev-exit");
            Runtime.getRuntime().addShutdownHook(exitHook);
        }
    }

    static synchronized void down(NetdevComponent c) {
        LIVE.remove(c.link(), c);
        if (LIVE.isEmpty() && exitHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException exiting) {
                // The hook is running.
            }
            exitHook = null;
        }
    }

    static void failed(String link, String reason) {
        FAILURES.put(link == null ? "" : link, reason == null ? "unknown error" : reason);
    }

    /** Why the last activation for an interface failed, or null. */
    static String failure(String link) {
        return FAILURES.get(link);
    }

    static void clearFailure(String link) {
        FAILURES.remove(link);
    }

    static NetdevComponent get(String link) {
        return LIVE.get(link);
    }

    static List<NetdevComponent> all() {
        return LIVE.values().stream().sorted((a, b) -> a.link().compareTo(b.link())).toList();
    }

    private static void closeAll() {
        for (NetdevComponent c : List.copyOf(LIVE.values())) {
            c.closeAtExit();
        }
    }
}
