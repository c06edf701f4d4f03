package ipoib.runtime;

/**
 * The one rule for an interface's default name, {@code ibX_Y_Z}: X the CA index, Y the port and
 * Z the P_Key, each in hexadecimal (the IPoIB link driver's high-level design, §2.1.1 "name":
 * CA 0, port 1, partition 0x14 is {@code ib0_1_14}; here the P_Key has four digits). The link
 * names its interfaces by it and every bundle that writes configurations for them (the
 * {@code --hosts} set-up) names them by it, so the two cannot disagree: CA 16 is
 * {@code ib10_1_ffff}, never {@code ib16_1_ffff}.
 */
public final class LinkNames {
    private LinkNames() {}

    /** {@code ibX_Y_Z} for CA index {@code caIndex}, port {@code port} and P_Key {@code pkey}. */
    public static String defaultName(int caIndex, int port, int pkey) {
        return String.format("ib%x_%x_%04x", caIndex, port, pkey & 0xFFFF);
    }

    /** The CA index of a device name: the number at its end (loop1 is 1, mlx5_0 is 0), or 0 without one. */
    public static int caIndex(String device) {
        int i = device.length();
        while (i > 0 && Character.isDigit(device.charAt(i - 1))) {
            i--;
        }
        return i == device.length() ? 0 : Integer.parseInt(device.substring(i));
    }
}
