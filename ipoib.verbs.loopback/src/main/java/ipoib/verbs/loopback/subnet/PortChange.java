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
    /** PortInfo's MasterSMLID changed: another SM manages the subnet. */
    SM_LID,
    /** The capability mask changed (an SM attached or left). */
    CAPABILITIES,
    /**
     * The SM set PortInfo with ClientReregister (IBA 14.4.11): the clients of an HCA port must
     * register again, their joins and subscriptions forgotten (a new master SM's first sweep).
     */
    CLIENT_REREGISTER
}
