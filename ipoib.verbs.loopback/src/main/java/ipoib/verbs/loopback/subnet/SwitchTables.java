package ipoib.verbs.loopback.subnet;

import java.util.Arrays;

/**
 * A switch's forwarding tables as primitive arrays, so that the data path looks a LID up without
 * allocating: the linear forwarding table (IBA 14.2.5.10, one output port per unicast LID up to
 * LinearFDBTop) and the multicast forwarding table (14.2.5.12, a port mask per MLID, kept as
 * 16-port words by position as the attribute carries them).
 *
 * <p>Writers (the agent's LinearForwardingTable and MulticastForwardingTable Sets, the emulated SM)
 * hold the topology lock; readers do not lock: entries are single bytes and shorts, and
 * {@link #linearFdbTop()} is volatile, so a reader sees each entry either before or after a Set.
 */
public final class SwitchTables {
    /** Unicast LIDs 1..0xBFFF; the table is indexed by LID (IBA 4.1.3). */
    public static final int LINEAR_CAP = 0xC000;
    /** Multicast LIDs 0xC000..0xC3FF (ibsim/sim.h MAXMCASTCAP). */
    public static final int MULTICAST_CAP = 1024;
    public static final int FIRST_MLID = 0xC000;
    /** An LFT entry no SM has programmed (IBA 14.2.5.10: 255 means "drop"). */
    public static final int NO_PORT = 0xFF;
    /** LIDs per LinearForwardingTable block. */
    public static final int LFT_BLOCK = 64;
    /** MLIDs per MulticastForwardingTable block. */
    public static final int MFT_BLOCK = 32;

    private final int portCount;
    private final int positions;
    private final byte[] linear = new byte[LINEAR_CAP];
    private volatile int linearFdbTop;
    private final short[] multicast;

    /** Empty tables for a switch with ports 0..portCount. */
    public SwitchTables(int portCount) {
        this.portCount = portCount;
        this.positions = portCount / 16 + 1;
        this.multicast = new short[MULTICAST_CAP * positions];
        Arrays.fill(linear, (byte) NO_PORT);
    }

    /** The number of 16-port words of a multicast port mask (MulticastForwardingTable PortMask positions). */
    public int positions() {
        return positions;
    }

    /** The output port for a unicast LID, or {@link #NO_PORT} when above LinearFDBTop or unprogrammed. */
    public int unicastPort(int lid) {
        if (lid <= 0 || lid > linearFdbTop || lid >= LINEAR_CAP) {
            return NO_PORT;
        }
        return linear[lid] & 0xFF;
    }

    /** The raw entry for a LID regardless of LinearFDBTop (what LinearForwardingTable Get returns). */
    public int linearEntry(int lid) {
        return linear[lid] & 0xFF;
    }

    /** Sets one LFT entry (LinearForwardingTable Set writes 64 at a time). */
    public void setLinearEntry(int lid, int port) {
        linear[lid] = (byte) port;
    }

    /** SwitchInfo.LinearFDBTop: the highest LID the LFT forwards. */
    public int linearFdbTop() {
        return linearFdbTop;
    }

    public void setLinearFdbTop(int top) {
        if (top < 0 || top >= LINEAR_CAP) {
            throw new IllegalArgumentException("LinearFDBTop " + top + ": allowed 0.." + (LINEAR_CAP - 1));
        }
        this.linearFdbTop = top;
    }

    /** Whether the multicast forwarding table sends packets for this MLID out of this port. */
    public boolean multicastForwards(int mlid, int port) {
        int index = mlid - FIRST_MLID;
        if (index < 0 || index >= MULTICAST_CAP || port < 0 || port > portCount) {
            return false;
        }
        return (multicast[index * positions + port / 16] & (1 << (port % 16))) != 0;
    }

    /** The 16-port word of an MLID's mask at a position (ports 16*position .. 16*position+15), or 0. */
    public int multicastMask(int mlid, int position) {
        int index = mlid - FIRST_MLID;
        if (index < 0 || index >= MULTICAST_CAP || position < 0 || position >= positions) {
            return 0;
        }
        return multicast[index * positions + position] & 0xFFFF;
    }

    /** Sets the 16-port word of an MLID's mask at a position. */
    public void setMulticastMask(int mlid, int position, int mask) {
        multicast[(mlid - FIRST_MLID) * positions + position] = (short) mask;
    }
}
