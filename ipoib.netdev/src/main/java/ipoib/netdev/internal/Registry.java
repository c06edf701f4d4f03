package ipoib.netdev.internal;

import ipoib.runtime.Threads;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The bridged interfaces of this bundle, by interface name, for the shell command (which reports
 * an activation's failure from here) and for the namespaces in use. Bundle-wide state: the
 * bundle's class loader scopes it.
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
    /** Interfaces whose component is between taking a kept device back and being listed. */
    private static final Set<String> STARTING = ConcurrentHashMap.newKeySet();

    private Registry() {}

    /** A device is up: it is listed, and {@code sync} runs every {@code seconds}. */
    static synchronized ScheduledFuture<?> up(NetdevComponent c, Runnable sync, long seconds) {
        FAILURES.remove(c.link());
        LIVE.put(c.link(), c);
        STARTING.remove(c.link());
        if (scheduler == null) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> Threads.create("ipoib-netdev-sync", true, r));
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
    }

    static void failed(String link, String reason) {
        FAILURES.put(link == null ? "" : link, reason == null ? "unknown error" : reason);
        if (link != null) {
            STARTING.remove(link);
        }
    }

    /** A component of {@code link} starts: until {@link #up} or {@link #failed}, its device is neither listed nor kept. */
    static void starting(String link) {
        if (link != null) {
            STARTING.add(link);
        }
    }

    static boolean isStarting(String link) {
        return STARTING.contains(link);
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

    /**
     * The namespaces of this appliance's devices, running or kept ({@link ParkedDevices}), but
     * those of component {@code exceptRunning} and kept device {@code exceptKept} (either may be null).
     */
    static Set<String> namespacesInUse(NetdevComponent exceptRunning, String exceptKept) {
        Set<String> result = new HashSet<>(ParkedDevices.namespaces(exceptKept));
        for (NetdevComponent c : LIVE.values()) {
            if (c != exceptRunning && c.netns() != null) {
                result.add(c.netns());
            }
        }
        return result;
    }
}
