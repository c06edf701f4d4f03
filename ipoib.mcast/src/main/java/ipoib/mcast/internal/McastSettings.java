package ipoib.mcast.internal;

/**
 * The manager's settings (PID {@value MulticastComponent#PID}), checked by the component.
 *
 * @param queueLength frames a group may hold while its join is under way
 * @param maxGroups groups a link may know at once
 * @param auditMillis how often a link's groups are audited against the SA (traps can be lost)
 * @param sendOnlyIdleMillis how long a send-only membership may go unused before it is left
 */
public record McastSettings(int queueLength, int maxGroups, long auditMillis, long sendOnlyIdleMillis) {

    /** Linux's idle time of a send-only group: two neighbour GC periods of 30 s. */
    public static final long DEFAULT_SEND_ONLY_IDLE_MILLIS = 60_000;

    /** Settings with the default send-only idle time. */
    public McastSettings(int queueLength, int maxGroups, long auditMillis) {
        this(queueLength, maxGroups, auditMillis, DEFAULT_SEND_ONLY_IDLE_MILLIS);
    }

    /** The defaults declared by {@link MulticastConfiguration}. */
    public static McastSettings defaults() {
        return SettingsCheck.settings(java.util.Map.of());
    }
}
