package ipoib.mcast.internal;

import ipoib.runtime.ConfigCheck;
import java.util.Map;

/**
 * The configuration of PID {@value MulticastComponent#PID} checked into {@link McastSettings}
 * against the metatype bnd generates from {@link MulticastConfiguration}: each range and default
 * is declared once, in the annotation.
 */
final class SettingsCheck {
    private static final ConfigCheck CHECK = ConfigCheck.of(MulticastConfiguration.class);

    private SettingsCheck() {}

    /**
     * The settings of a configuration.
     *
     * @throws ipoib.runtime.ConfigRefusedException naming each refused property, its value and the allowed range
     */
    static McastSettings settings(Map<String, ?> configuration) {
        CHECK.checkDeclared(configuration);
        return new McastSettings(intValue(configuration, "pendingFramesPerGroup"),
                intValue(configuration, "maxGroupsPerLink"), 1000L * intValue(configuration, "auditSeconds"),
                1000L * intValue(configuration, "sendOnlyIdleSeconds"));
    }

    /** A checked value, or the declared default. */
    private static int intValue(Map<String, ?> configuration, String property) {
        Object v = configuration.get(property);
        if (v == null) {
            v = CHECK.attribute(property).defaults();
        }
        return v instanceof Number n ? n.intValue() : Integer.parseInt(v.toString().strip());
    }
}
