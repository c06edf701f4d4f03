package ipoib.netdev.internal;

import ipoib.runtime.Cancellable;
import ipoib.runtime.Clock;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The bridged interfaces of this bundle, by interface name, for the shell command (which reports
 * an activation's failure from here) and for the namespaces in use. Bundle-wide state: the
 * bundle's class loader scopes it.
 */
final class Registry {
    /** Failures of a reconciliation: counted, and logged at most once a minute. */
    private static final RateLimitedFailures SYNC_FAILURES = new RateLimitedFailures(FailureHandler.JAVA_LOGGING,
            Clock.SYSTEM, 60, TimeUnit.SECONDS);

    /** Every device's reconciliation, on one control loop (a daemon thread) while a device is up. */
    private static final Reconciliation RECONCILIATION = new Reconciliation(
            () -> new ThreadControlLoop("ipoib-netdev-sync", SYNC_FAILURES));

    private static final Map<String, NetdevComponent> LIVE = new ConcurrentHashMap<>();
    private static final Map<String, String> FAILURES = new ConcurrentHashMap<>();
    /** Interfaces whose component is between taking a kept device back and being listed. */
    private static final Set<String> STARTING = ConcurrentHashMap.newKeySet();

    private Registry() {}

    /** A device is up: it is listed, and {@code sync} runs every {@code seconds}. */
    static synchronized Cancellable up(NetdevComponent c, Runnable sync, long seconds) {
        FAILURES.remove(c.link());
        LIVE.put(c.link(), c);
        STARTING.remove(c.link());
        return RECONCILIATION.every(sync, seconds);
    }

    /** Runs {@code task} soon on the reconciliation thread (ignored when no device is up). */
    static void execute(Runnable task) {
        RECONCILIATION.execute(task);
    }

    static synchronized void down(NetdevComponent c) {
        LIVE.remove(c.link(), c);
        if (LIVE.isEmpty()) {
            RECONCILIATION.idle();
        }
    }

    /** Reconciliations that failed so far (each counted; logged at most once a minute). */
    static long syncFailures() {
        return SYNC_FAILURES.count();
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
