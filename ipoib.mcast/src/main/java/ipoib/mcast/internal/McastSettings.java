package ipoib.mcast.internal;

/**
 * The manager's settings (PID {@value MulticastComponent#PID}), checked by the component.
 *
 * @param queueLength frames a group may hold while its join is under way
 * @param maxGroups groups a link may know at once
 * @param auditMillis how often a link's groups are audited against the SA (traps can be lost)
 */
public record McastSettings(int queueLength, int maxGroups, long auditMillis) {

    /** The defaults declared by {@link MulticastConfiguration}. */
    public static McastSettings defaults() {
        return SettingsCheck.settings(java.util.Map.of());
    }
}
