package ipoib.verbs.loopback.subnet;

/** PortInfo.PortPhysicalState (IBA 14.2.5.6; the physical link states of 5.7). */
public enum PhysicalState {
    SLEEP(1),
    POLLING(2),
    DISABLED(3),
    PORT_CONFIGURATION_TRAINING(4),
    LINK_UP(5),
    LINK_ERROR_RECOVERY(6);

    private final int code;

    PhysicalState(int code) {
        this.code = code;
    }

    /** The wire value. */
    public int code() {
        return code;
    }

    /** The state with this wire value, or null for 0 (no change) and undefined values. */
    public static PhysicalState ofCode(int code) {
        for (PhysicalState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
