package ipoib.verbs.loopback.subnet;

/**
 * PortInfo.PortState (IBA 14.2.5.6, the logical link states of 7.2). The codes are the wire values;
 * 0 is "no state change" on a Set and never a port's state.
 */
public enum PortState {
    DOWN(1),
    INIT(2),
    ARMED(3),
    ACTIVE(4);

    private static final PortState[] BY_CODE = {null, DOWN, INIT, ARMED, ACTIVE};

    private final int code;

    PortState(int code) {
        this.code = code;
    }

    /** The wire value. */
    public int code() {
        return code;
    }

    /** The state with this wire value, or null for 0 (no change) and values IBA does not define. */
    public static PortState ofCode(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
