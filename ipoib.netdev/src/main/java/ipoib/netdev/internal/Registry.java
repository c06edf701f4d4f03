package ipoib.netdev.internal;

import ipoib.runtime.Threads;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The bridged interfaces of this bundle, by interface name, for the shell command (which reports
 * an activation's failure from here) and for the JVM exit: Gogo's {@code exit} ends the JVM
 * without stopping the framework, so a shutdown hook closes the devices still open and removes
 * the namespaces this appliance created. Bundle-wide state: the bundle's class loader scopes it.
 */
final class Registry {
    /**
     * One daemon thread for every device's reconciliation (a few {@code ip} commands every few
     * seconds), there while a device is: it ends with the last one, so an updated bundle leaves
     * no thread of its old class loader behind.
     */
    private static ScheduledExecutorService scheduler;

    private static final Map<String, NetdevComponent> LIVE = new ConcurrentHashMap<>();
    private static final Map<String, String> FAILURES = new ConcurrentHashMap<>();
    private static Thread exitHook;

    private Registry() {}

    /** A device is up: it is listed, and {@code sync} runs every {@code seconds}. */
    static synchronized ScheduledFuture<?> up(NetdevComponent c, Runnable sync, long seconds) {
        FAILURES.remove(c.link());
        LIVE.put(c.link(), c);
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> Threads.create("ipoib-netdev-sync", true, r));
        }
        if (exitHook == null) {
            exitHook = new Thread(Registry::closeAll, "ipoib-netdev-exit");
            Runtime.getRuntime().addShutdownHook(exitHook);
        }
        return scheduler.scheduleWithFixedDelay(sync, seconds, seconds, TimeUnit.SECONDS);
    }

    /** Runs {@code task} soon on the reconciliation thread (ignored when no device is up). */
    static synchronized void execute(Runnable task) {
        if (scheduler != null) {
            scheduler.execute(task);
        }
    }

    static synchronized void down(NetdevComponent c) {
        LIVE.remove(c.link(), c);
        if (LIVE.isEmpty() && scheduler != null) {
            scheduler.shutdown();
            scheduler = null;
        }
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
