package ipoib.verbs.loopback.agent;

import ipoib.codec.Wire;
import ipoib.codec.smp.Smp;
import ipoib.verbs.loopback.subnet.Port;
import java.lang.foreign.MemorySegment;

/**
 * The SMA's traps (IBA 14.2.5.1 Notice; ibsim/sim_mad.c encode_trap128, encode_trap144,
 * send_trap): a LID-routed Trap(Notice) from the port to its MasterSMLID. A port without a LID or
 * without an SM LID sends nothing, as ibsim.
 */
final class Traps {
    /** PortStateChange: a switch's port went down or came up. */
    static final int LINK_STATE_CHANGE = 128;
    /** CapabilityMask changed (an SM attached or left the port). */
    static final int CAPABILITY_MASK_CHANGE = 144;

    private static final int NOTICE_TYPE_URGENT = 1;
    private static final int NOTICE_TYPE_INFORMATIONAL = 4;

    private Traps() {
    }

    /**
     * Writes the Trap MAD into {@code mad} (256 octets) and answers true, or false when the port
     * has no LID or SM LID yet.
     */
    static boolean encode(Port from, int trapNumber, byte[] mad) {
        if (from.lid() == 0 || from.smLid() == 0) {
            return false;
        }
        java.util.Arrays.fill(mad, (byte) 0);
        MemorySegment s = MemorySegment.ofArray(mad);
        Wire.put8(s, 0, 1);
        Wire.put8(s, 1, Smp.CLASS_LID_ROUTED);
        Wire.put8(s, 2, Smp.CLASS_VERSION);
        Wire.put8(s, 3, Smp.METHOD_TRAP);
        Wire.put16(s, 16, Smp.ATTR_NOTICE);
        long n = Smp.DATA;
        boolean urgent = trapNumber == LINK_STATE_CHANGE;
        // Notice (IBA 13.4.8.2): IsGeneric | Type, ProducerType, TrapNumber, IssuerLID.
        Wire.put8(s, n, 0x80 | (urgent ? NOTICE_TYPE_URGENT : NOTICE_TYPE_INFORMATIONAL));
        Wire.put24(s, n + 1, from.node().type().code());
        Wire.put16(s, n + 4, trapNumber);
        Wire.put16(s, n + 6, from.lid());
        long details = n + 10;
        if (urgent) {
            Wire.put16(s, details, from.lid()); // trap 128: LIDADDR of the switch
        } else {
            Wire.put16(s, details + 2, from.lid()); // trap 144: LIDADDR, then CapabilityMask
            Wire.put32(s, details + 6, from.capabilityMask());
        }
        return true;
    }
}
