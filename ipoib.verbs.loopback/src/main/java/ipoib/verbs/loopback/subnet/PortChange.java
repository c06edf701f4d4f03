package ipoib.verbs.loopback.subnet;

/** What changed at a port, for {@link TopologyListener}s. */
public enum PortChange {
    /** The physical link went up or down ({@link Port#linkUp()}, {@link Port#physicalState()}). */
    LINK,
    /** The active width or speed changed after an SM changed the enabled ones (not a link state change). */
    RATE,
    /** The logical state changed ({@link Port#state()}). */
    STATE,
    /** The LID or LMC changed. */
    LID,
    /** The P_Key table changed. */
    PKEYS,
    /** The capability mask changed (an SM attached or left). */
    CAPABILITIES
}
