package ipoib.api.verbs;

/**
 * An asynchronous port event (IBA 11.6.3; libibverbs' {@code ibv_event_type} for ports).
 *
 * @param port the port
 * @param type what happened
 */
public record PortEvent(Port port, Type type) {

    public enum Type {
        /** The port became ACTIVE. */
        PORT_ACTIVE,
        /** The port left ACTIVE (link down, cable pulled, port reset). */
        PORT_ERROR,
        /** The SM assigned a new LID. */
        LID_CHANGE,
        /** The P_Key table changed. */
        PKEY_CHANGE,
        /** The GID table changed (e.g. a new subnet prefix). */
        GID_CHANGE,
        /** A new SM took over. */
        SM_CHANGE,
        /** The SM asks every client to register again: joins and subscriptions are lost. */
        CLIENT_REREGISTER,
        /** The device failed; every resource on it is gone. */
        DEVICE_FATAL
    }
}
