package ipoib.verbs.loopback.agent;

import java.util.Arrays;

/**
 * A port's SLtoVLMappingTable(s) and VLArbitrationTable (IBA 14.2.5.8 and 14.2.5.9), kept as the
 * octets the attributes carry, with ibsim's defaults (ibsim/sim_net.c default_sl2vl,
 * default_vlarb_high, default_vlarb_low). A switch port keeps one SL-to-VL table per input port.
 */
final class VlTables {
    /** SL i to VL i for SL 0..14 and SL 15 to VL 7 (sim_net.c default_sl2vl). */
    private static final byte[] DEFAULT_SL_TO_VL = {0x01, 0x23, 0x45, 0x67, (byte) 0x89, (byte) 0xab, (byte) 0xcd,
        (byte) 0xe7};
    /** Entries per VLArbitrationTable half (IBA: blocks of 32, high and low priority up to 64 each). */
    static final int ARBITRATION_ENTRIES = 64;

    final byte[][] slToVl;
    /** Octet pairs (VL, weight): [0] low priority, [1] high priority, 64 entries each. */
    final byte[][] arbitration = new byte[2][2 * ARBITRATION_ENTRIES];

    VlTables(int inputPorts) {
        slToVl = new byte[inputPorts][];
        for (int i = 0; i < inputPorts; i++) {
            slToVl[i] = DEFAULT_SL_TO_VL.clone();
        }
        // sim_net.c default_vlarb_low: VL 0 weight 0, VL 1..14 weight 4; default_vlarb_high: VL 0 weight 4.
        for (int i = 0; i < 15; i++) {
            arbitration[0][2 * i] = (byte) i;
            arbitration[0][2 * i + 1] = (byte) (i == 0 ? 0 : 4);
            arbitration[1][2 * i] = (byte) i;
            arbitration[1][2 * i + 1] = (byte) (i == 0 ? 4 : 0);
        }
    }

    @Override
    public String toString() {
        return "VlTables" + Arrays.deepToString(slToVl);
    }
}
