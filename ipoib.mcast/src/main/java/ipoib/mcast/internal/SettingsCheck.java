package ipoib.mcast.internal;

import java.util.Map;
import java.util.function.Consumer;

/** The configuration of PID {@value MulticastComponent#PID} checked into {@link McastSettings}. */
final class SettingsCheck {
    private SettingsCheck() {}

    /**
     * The settings of a configuration.
     *
     * @throws IllegalArgumentException naming the property, the value and the allowed range
     */
    static McastSettings settings(Map<String, Object> configuration) {
        return new McastSettings(
                intValue(configuration, "pendingFramesPerGroup", McastSettings.DEFAULTS.queueLength(), 1, 4096),
                intValue(configuration, "maxGroupsPerLink", McastSettings.DEFAULTS.maxGroups(), 16, 65536),
                1000L * intValue(configuration, "auditSeconds", (int) (McastSettings.DEFAULTS.auditMillis() / 1000), 5, 3600));
    }

    /** The settings of a changed configuration, or the previous ones when it is refused (said to {@code log}). */
    static McastSettings update(Map<String, Object> configuration, McastSettings previous, Consumer<String> log) {
        try {
            return settings(configuration);
        } catch (IllegalArgumentException e) {
            log.accept(e.getMessage() + "; the previous configuration stays in force");
            return previous;
        }
    }

    private static int intValue(Map<String, Object> c, String key, int fallback, int min, int max) {
        Object v = c.get(key);
        if (v == null) {
            return fallback;
        }
        long n;
        try {
            n = v instanceof Number number && !(v instanceof Double || v instanceof Float) ? number.longValue()
                    : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw refused(key, v, min, max);
        }
        if (n < min || n > max) {
            throw refused(key, v, min, max);
        }
        return (int) n;
    }

    private static IllegalArgumentException refused(String key, Object value, int min, int max) {
        return new IllegalArgumentException("invalid " + MulticastComponent.PID + " property '" + key + "' value '" + value
                + "': allowed an integer " + min + ".." + max);
    }
}
