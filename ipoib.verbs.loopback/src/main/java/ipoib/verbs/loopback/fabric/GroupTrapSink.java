package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Mgid;

/** Receives the traps the subnet manager raises, to report them to subscribers. */
public interface GroupTrapSink {

    /**
     * A group was created (trap 66) or deleted (trap 67).
     *
     * @param subscriber the subscribed port
     * @param trapNumber 66 or 67
     * @param mgid the group
     * @param subscription the subscriber's registration (returned by subscribe)
     */
    void report(LoopPort subscriber, int trapNumber, Mgid mgid, Object subscription);

    GroupTrapSink NONE = (subscriber, trap, mgid, subscription) -> { };

    /** Helper for sinks: the GID of the subscriber. */
    static Gid gidOf(LoopPort port) {
        return port.gid(0);
    }
}
