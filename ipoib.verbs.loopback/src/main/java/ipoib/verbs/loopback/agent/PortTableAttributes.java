package ipoib.verbs.loopback.agent;

import ipoib.codec.smp.Smp;
import ipoib.codec.smp.SmpTables;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.Topology;
import java.lang.foreign.MemorySegment;

/**
 * A port's P_KeyTable (IBA 14.2.5.7), SLtoVLMappingTable (14.2.5.8) and VLArbitrationTable
 * (14.2.5.9), addressed as ibsim/sim_mad.c do_pkeytbl, do_sl2vl and do_vlarb address them: on a
 * switch the modifier names the port, on an HCA the arrival port is meant.
 */
final class PortTableAttributes {
    /** VLArbitrationHighCap and LowCap: 8 entries each (ibsim's PortInfo templates). */
    static final int ARBITRATION_CAP = 8;

    private final Topology topology;
    private final SubnetAgentState state;

    PortTableAttributes(Topology topology, SubnetAgentState state) {
        this.topology = topology;
        this.state = state;
    }

    /** Modifier: bits 31:16 the switch port, 15:0 the block of 32 P_Keys. */
    int pkeyTable(Port at, int method, int modifier, MemorySegment data) {
        Port p = at.node().isSwitch() ? at.node().port(modifier >>> 16) : at;
        int block = modifier & 0xFFFF;
        if (p == null || block * SmpTables.PKEYS_PER_BLOCK >= p.pkeyEntries()) {
            return Smp.STATUS_INVALID_VALUE;
        }
        int first = block * SmpTables.PKEYS_PER_BLOCK;
        int count = Math.min(SmpTables.PKEYS_PER_BLOCK, p.pkeyEntries() - first);
        if (method == Smp.METHOD_SET) {
            for (int i = 0; i < count; i++) {
                topology.setPkey(p, first + i, SmpTables.pkey(data, 0, i));
            }
        }
        NodeAttributes.clear(data);
        for (int i = 0; i < count; i++) {
            SmpTables.setPkey(data, 0, i, p.pkey(first + i));
        }
        return 0;
    }

    /** Modifier on a switch: bits 15:8 the input port, 7:0 the output port. */
    int slToVlMappingTable(Port at, int method, int modifier, MemorySegment data) {
        Node n = at.node();
        Port p = at;
        int index = 0;
        if (n.isSwitch()) {
            p = n.port((modifier >>> 8) & 0xFF);
            index = modifier & 0xFF;
            if (p == null || index > n.portCount()) {
                return Smp.STATUS_INVALID_VALUE;
            }
        }
        byte[] table = state.vlTables(p).slToVl[index];
        if (method == Smp.METHOD_SET) {
            for (int i = 0; i < table.length; i++) {
                table[i] = data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i);
            }
        }
        NodeAttributes.clear(data);
        for (int i = 0; i < table.length; i++) {
            data.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, table[i]);
        }
        return 0;
    }

    /** Modifier: bits 31:16 the block (1, 2 low priority; 3, 4 high priority), on a switch 15:0 the port. */
    int vlArbitrationTable(Port at, int method, int modifier, MemorySegment data) {
        Node n = at.node();
        Port p = n.isSwitch() ? n.port(modifier & 0xFFFF) : at;
        int block = (modifier >>> 16) - 1;
        // With 8 entries per priority only the first block of each exists (ibsim: n % 2 > size / 32).
        if (p == null || block < 0 || block > 3 || block % 2 != 0) {
            return Smp.STATUS_INVALID_VALUE;
        }
        byte[] table = state.vlTables(p).arbitration[block / 2];
        if (method == Smp.METHOD_SET) {
            for (int i = 0; i < ARBITRATION_CAP; i++) {
                table[2 * i] = (byte) SmpTables.vlArbitrationVl(data, 0, i);
                table[2 * i + 1] = (byte) SmpTables.vlArbitrationWeight(data, 0, i);
            }
        }
        NodeAttributes.clear(data);
        for (int i = 0; i < ARBITRATION_CAP; i++) {
            SmpTables.setVlArbitration(data, 0, i, table[2 * i], table[2 * i + 1] & 0xFF);
        }
        return 0;
    }
}
