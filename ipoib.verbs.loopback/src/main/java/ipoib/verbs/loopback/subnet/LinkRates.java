package ipoib.verbs.loopback.subnet;

/**
 * PortInfo's link width and speed bit masks (IBA 14.2.5.6 LinkWidthEnabled/Supported/Active,
 * LinkSpeedEnabled/Supported/Active) and the widest and fastest common setting two cabled ports
 * train to (ibsim/sim_net.c get_active_linkwidth, get_active_linkspeed).
 */
public final class LinkRates {
    public static final int WIDTH_1X = 1;
    public static final int WIDTH_4X = 2;
    public static final int WIDTH_8X = 4;
    public static final int WIDTH_12X = 8;
    public static final int WIDTH_2X = 16;
    /** Every width ibsim supports (sim_net.c update_portinfo: LINKWIDTH_1x_2x_4x_8x_12x). */
    public static final int WIDTH_ALL = 31;

    public static final int SPEED_SDR = 1;
    public static final int SPEED_DDR = 2;
    public static final int SPEED_QDR = 4;
    /** Every speed ibsim supports (sim_net.c update_portinfo: LINKSPEED_SDR_DDR_QDR). */
    public static final int SPEED_ALL = 7;

    private LinkRates() {
    }

    /** The widest width both masks enable, or 0 when they share none. */
    public static int activeWidth(int enabledA, int enabledB) {
        int common = enabledA & enabledB;
        for (int w : new int[] {WIDTH_12X, WIDTH_8X, WIDTH_4X, WIDTH_2X, WIDTH_1X}) {
            if ((common & w) != 0) {
                return w;
            }
        }
        return 0;
    }

    /** The fastest speed both masks enable, or 0 when they share none. */
    public static int activeSpeed(int enabledA, int enabledB) {
        int common = enabledA & enabledB;
        for (int s : new int[] {SPEED_QDR, SPEED_DDR, SPEED_SDR}) {
            if ((common & s) != 0) {
                return s;
            }
        }
        return 0;
    }

    /** The lanes of an active width code (1, 2, 4, 8 or 12), 0 for none. */
    public static int lanes(int width) {
        return switch (width) {
            case WIDTH_1X -> 1;
            case WIDTH_2X -> 2;
            case WIDTH_4X -> 4;
            case WIDTH_8X -> 8;
            case WIDTH_12X -> 12;
            default -> 0;
        };
    }

    /** ibnetdiscover's name of an active speed code ("SDR", "DDR", "QDR"). */
    public static String speedName(int speed) {
        return switch (speed) {
            case SPEED_SDR -> "SDR";
            case SPEED_DDR -> "DDR";
            case SPEED_QDR -> "QDR";
            default -> "?";
        };
    }
}
