package ipoib.mcast.internal;

import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;

/** What a link's group manager needs from its surroundings (the OSGi component, or a test). */
interface McastEnvironment {

    /**
     * The single thread every group state change runs on, in order; answers of the subnet
     * administrator and port events are moved onto it.
     */
    ScheduledExecutorService control();

    /** Frames a group may hold while its join is under way. */
    int queueLength();

    /** Groups a link may know at once. */
    int maxGroups();

    /** How often a link's groups are audited against the SA (traps can be lost). */
    long auditMillis();

    /** The shared trap subscriptions of the ports. */
    TrapRegistry traps();

    /** Posts an EventAdmin event, if EventAdmin is there. */
    void postEvent(String topic, Map<String, Object> properties);

    void info(String message);

    void warn(String message);
}
